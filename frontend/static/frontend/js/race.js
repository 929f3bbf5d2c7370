// A race room: lobby with a share link, countdown, everyone's progress, my game, the results.
import { api, socketUrl } from "./api.js";
import { Table } from "./game.js";
import { LiveSocket } from "./socket.js";
import { outcomeText, summaryItem } from "./summary.js";

const _ = (s) => (window.gettext ? window.gettext(s) : s);
const fmt = (s, o) => (window.interpolate ? window.interpolate(s, o, true) : s);
const root = document.querySelector(".race");
const code = root.dataset.code;
const me = Number(root.dataset.user);
const playRoot = root.querySelector(".play");
let race = null;
let member = false;
let table = null;
let countdownTimer = null;
let socket = null;

const rest = async (call) => {
  try {
    return { ok: true, game: await call() };
  } catch (error) {
    return { ok: false, code: error.code, message: error.message };
  }
};

const transport = {
  async viaSocket(message, fallback) {
    if (socket && socket.open) {
      const answer = await socket.request(message);
      if (answer.type === "move.ok") return { ok: true, game: answer.game };
      if (answer.code !== "disconnected" && answer.code !== "timeout") return { ok: false, code: answer.code, message: answer.message };
    }
    return rest(fallback);
  },
  move(move, seen) {
    return this.viaSocket({ type: "move", move, seen }, () => api("POST", `/api/races/${code}/moves/`, { move, seen }));
  },
  resign() {
    return this.viaSocket({ type: "resign" }, () => api("POST", `/api/races/${code}/resign/`));
  },
  undo() {
    return Promise.resolve({ ok: false, message: _("There is no undo in a race") });
  },
  reload() {
    return rest(() => api("GET", `/api/races/${code}/game/`));
  },
};

function status(text) {
  root.querySelector(".race-status").textContent = text;
}

function boardSize(preset) {
  return { classic: 28, "one-pass": 28, egyptian: 28, double: 45 }[preset] || 21;
}

function showPlayers() {
  const list = root.querySelector("[data-list=players]");
  list.replaceChildren(
    ...race.players.map((entry) =>
      summaryItem({ ...entry.summary, game: entry.player.id, outcome: race.status === "lobby" ? "ready" : entry.summary.outcome }, { name: entry.player.display_name + (entry.player.id === me ? ` (${_("you")})` : ""), size: boardSize(race.preset) }),
    ),
  );
}

// A game that is over, mine or the race's, takes no more moves: its buttons go (they only drew a refusal).
function endControls() {
  for (const button of playRoot.querySelectorAll(".controls button")) {
    button.disabled = true;
    button.hidden = true;
  }
}

function showResults(results) {
  const body = root.querySelector(".results tbody");
  body.replaceChildren(
    ...results.map((row) => {
      const tr = document.createElement("tr");
      if (row.player.id === me) tr.className = "me";
      for (const text of [row.place, row.player.display_name, outcomeText(row.outcome), row.score, row.moves]) {
        const td = document.createElement("td");
        td.textContent = text;
        tr.append(td);
      }
      tr.children[0].className = tr.children[3].className = tr.children[4].className = "num";
      return tr;
    }),
  );
  root.querySelector(".results").hidden = false;
  endControls();
  const mine = results.find((row) => row.player.id === me);
  status(mine ? fmt(_("The race is over: you finished in place %(place)s."), { place: mine.place }) : _("The race is over."));
}

function countdown(startsAt) {
  const big = root.querySelector(".big-count");
  big.hidden = false;
  clearInterval(countdownTimer);
  const tick = () => {
    const left = Math.ceil((new Date(startsAt).getTime() - Date.now()) / 1000);
    if (left <= 0) {
      big.textContent = _("Go!");
      clearInterval(countdownTimer);
      setTimeout(() => (big.hidden = true), 800);
      if (!table) api("GET", `/api/races/${code}/game/`).then(startGame, () => {});
      return;
    }
    big.textContent = String(left);
  };
  tick();
  countdownTimer = setInterval(tick, 250);
}

function startGame(game) {
  if (!game || table) return;
  playRoot.hidden = false;
  playRoot.querySelector(".board").dataset.preset = race.preset;
  const stat = (name) => playRoot.querySelector(`[data-stat=${name}]`);
  table = new Table(playRoot, {
    game,
    transport,
    onChange: (view) => {
      stat("score").textContent = view.state.score;
      stat("moves").textContent = view.state.moves;
      stat("redeals").textContent = view.state.recycles_unlimited ? "∞" : view.state.recycles_left;
      stat("left").textContent = view.state.pyramid_left;
    },
    onFinished: () => {
      endControls();
      status(_("Your game is over: waiting for the others…"));
    },
  });
  if (table.over) endControls();
  status(_("Race on!"));
  document.body.dataset.playing = "1";
}

// Once a race with results is over, its players may race again: the first to ask opens the rematch,
// the others join it (the button says which).
function showRematch() {
  const button = root.querySelector(".rematch");
  button.hidden = !(member && race.status === "finished" && race.results && race.results.length);
  button.textContent = race.rematch ? _("Join the rematch") : _("Rematch");
}

function showRace(state) {
  race = state.race;
  member = state.me.member;
  const labels = JSON.parse(document.getElementById("preset-labels").textContent);
  root.querySelector(".race-preset").textContent = labels[race.preset] || race.preset;
  const lobby = root.querySelector(".lobby");
  lobby.hidden = race.status !== "lobby";
  root.querySelector(".share-link").value = location.href;
  root.querySelector(".join").hidden = state.me.member || race.status !== "lobby";
  root.querySelector(".start").hidden = !state.me.host || race.status !== "lobby";
  root.querySelector(".leave").hidden = !state.me.member || race.status !== "lobby";
  showPlayers();
  if (race.status === "lobby") {
    if (state.me.host) status(_("Start the race when everyone is here."));
    else status(state.me.member ? _("Waiting for the host to start…") : _("Join to race."));
  }
  if (race.status === "countdown" && race.starts_at) countdown(race.starts_at);
  if (race.status === "running" && state.me.game) startGame(state.me.game);
  if (race.status === "finished" && race.results) {
    if (state.me.game) startGame(state.me.game);
    showResults(race.results);
  }
  showRematch();
  document.body.dataset.ready = "1";
  root.dataset.status = race.status;
}

socket = new LiveSocket(socketUrl(`/ws/races/${code}/`), {
  onOpen: () => (root.querySelector(".connection").textContent = ""),
  onClose: () => (root.querySelector(".connection").textContent = _("Connection lost: reconnecting…")),
  onMessage: (message) => {
    if (race && message.version && message.version > race.version + 1 && message.type.startsWith("race.") && message.type !== "race.state") {
      socket.send({ type: "sync" });
      return;
    }
    switch (message.type) {
      case "race.state":
        showRace(message);
        break;
      case "race.player_joined":
      case "race.player_left":
        socket.send({ type: "sync" });
        break;
      case "race.countdown":
        race.status = "countdown";
        root.dataset.status = "countdown";
        root.querySelector(".lobby").hidden = true;
        status(_("Get ready…"));
        countdown(message.starts_at);
        break;
      case "race.started":
        race.status = "running";
        root.dataset.status = "running";
        startGame(message.game);
        break;
      case "race.progress": {
        const entry = race.players.find((p) => p.player.id === message.player.id);
        if (entry) entry.summary = message.summary;
        showPlayers();
        break;
      }
      case "race.finished":
        race.status = "finished";
        root.dataset.status = "finished";
        showResults(message.results);
        socket.send({ type: "sync" });
        break;
      case "race.rematch":
        race.rematch = message.rematch;
        showRematch();
        if (message.host.id !== me) status(fmt(_("%(name)s asks for a rematch: join it."), { name: message.host.display_name }));
        break;
      default:
        break;
    }
    if (message.version && race) race.version = Math.max(race.version, message.version);
  },
});

root.querySelector(".join").addEventListener("click", async () => {
  const answer = await socket.request({ type: "join" });
  if (answer.type === "race.state") showRace(answer);
  else status(answer.message);
});
root.querySelector(".start").addEventListener("click", async () => {
  const answer = await socket.request({ type: "start", countdown: 3 });
  if (answer.type === "race.state") showRace(answer);
  else status(answer.message);
});
root.querySelector(".leave").addEventListener("click", async () => {
  const answer = await socket.request({ type: "leave" });
  if (answer.type === "race.state") showRace(answer);
  else status(answer.message);
});
root.querySelector(".rematch").addEventListener("click", async () => {
  try {
    const next = await api("POST", `/api/races/${code}/rematch/`);
    location.assign(`/races/${next.code}/`);
  } catch (error) {
    status(error.message);
  }
});
root.querySelector(".copy-link").addEventListener("click", async () => {
  const { copyText } = await import("./share.js");
  if (await copyText(location.href)) status(_("Link copied"));
});
playRoot.querySelector("[data-action=draw]").addEventListener("click", () => table && table.draw());
playRoot.querySelector("[data-action=resign]").addEventListener("click", async () => {
  if (!table || !confirm(_("Give up the race?"))) return;
  const result = await transport.resign();
  if (result.ok) table.replace(result.game);
});
