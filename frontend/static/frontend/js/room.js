// The live room of a daily challenge: who is playing, their progress, the top of the board.
import { socketUrl } from "./api.js";
import { LiveSocket } from "./socket.js";
import { summaryItem } from "./summary.js";

const _ = (s) => (window.gettext ? window.gettext(s) : s);
const fmt = (s, o) => (window.interpolate ? window.interpolate(s, o, true) : s);
const root = document.querySelector(".room");
const games = new Map();
let size = 28;

function showStats(stats) {
  for (const key of ["players", "playing", "finished", "wins"]) root.querySelector(`[data-stat=${key}]`).textContent = stats[key];
}

function showGames() {
  const list = root.querySelector("[data-list=games]");
  list.replaceChildren();
  const playing = [...games.values()].filter((s) => !s.finished);
  if (!playing.length) {
    const li = document.createElement("li");
    li.className = "empty";
    li.textContent = _("Nobody is playing right now.");
    list.append(li);
  }
  for (const s of playing) list.append(summaryItem(s, { size, href: `/games/${s.game}/watch/` }));
}

function showTop(top) {
  const list = root.querySelector("[data-list=top]");
  if (!top.length) {
    const li = document.createElement("li");
    li.className = "empty";
    li.textContent = _("No finished games yet.");
    list.replaceChildren(li);
    return;
  }
  list.replaceChildren(
    ...top.map((row) => {
      const li = document.createElement("li");
      li.textContent = fmt(_("%(name)s: %(points)s points in %(moves)s moves"), { name: row.player.display_name, points: row.points, moves: row.moves });
      return li;
    }),
  );
}

new LiveSocket(socketUrl(`/ws/challenges/${root.dataset.challenge}/`), {
  onOpen: () => (root.querySelector(".connection").textContent = ""),
  onClose: () => (root.querySelector(".connection").textContent = _("Connection lost: reconnecting…")),
  onMessage: (message) => {
    if (message.type === "room.snapshot") {
      size = { classic: 28, "one-pass": 28, egyptian: 28, double: 45 }[message.challenge.preset] || 21;
      games.clear();
      for (const s of message.games) games.set(s.game, s);
      showStats(message.stats);
      showTop(message.top);
      showGames();
    } else if (message.type === "room.update") {
      for (const s of message.games || []) games.set(s.game, s);
      if (message.stats) showStats(message.stats);
      if (message.top) showTop(message.top);
      showGames();
    }
    document.body.dataset.ready = "1";
  },
});
