// Watch a game over its socket: the board when the spoiler rule allows it, else summaries only.
import { socketUrl } from "./api.js";
import { Board, moveText } from "./board.js";
import { LiveSocket } from "./socket.js";
import { outcomeText } from "./summary.js";

const _ = (s) => (window.gettext ? window.gettext(s) : s);
const fmt = (s, o) => (window.interpolate ? window.interpolate(s, o, true) : s);
const root = document.querySelector(".watch");
const gameId = root.dataset.game;
const board = new Board(root.querySelector(".board"), { interactive: false });
const stat = (name) => root.querySelector(`[data-stat=${name}]`);
let version = null;
let size = null;
let replaying = false;
let latest = null;

function showNumbers({ score, moves, pyramid_left, outcome }) {
  stat("score").textContent = score;
  stat("moves").textContent = moves;
  stat("left").textContent = pyramid_left;
  stat("outcome").textContent = outcomeText(outcome);
  showTitle(outcome);
  if (size) root.querySelector(".progress span").style.width = `${Math.round((100 * (size - pyramid_left)) / size)}%`;
}

function showTitle(outcome) {
  const over = outcome !== "in_progress";
  root.querySelector("#watch-title .playing").hidden = over;
  root.querySelector("#watch-title .played").hidden = !over;
}

function showGame(game) {
  version = game.moves;
  latest = game;
  if (replaying) return;
  const state = game.state;
  size = state.rows.reduce((n, row) => n + row.length, 0);
  root.querySelector(".full-view").hidden = false;
  root.querySelector(".spoiler").hidden = true;
  board.render(state);
  showNumbers({ score: game.score, moves: game.moves, pyramid_left: state.pyramid_left, outcome: game.outcome });
}

function showSummary(summary) {
  root.querySelector(".full-view").hidden = true;
  root.querySelector(".spoiler").hidden = false;
  size = size || Math.max(summary.pyramid_left, 28);
  showNumbers(summary);
}

const socket = new LiveSocket(socketUrl(`/ws/games/${gameId}/`), {
  connectUrl: () => socketUrl(`/ws/games/${gameId}/${version != null ? `?since=${version}` : ""}`),
  onOpen: () => (root.querySelector(".connection").textContent = ""),
  onClose: () => (root.querySelector(".connection").textContent = _("Connection lost: reconnecting…")),
  onMessage: (message) => {
    switch (message.type) {
      case "hello":
        root.dataset.view = message.view;
        break;
      case "state":
        showGame(message.game);
        break;
      case "summary":
      case "game.progress":
        showSummary(message.summary);
        break;
      case "game.move_made":
        if (version == null || message.version === version + 1) showGame(message.state);
        else if (message.version > version + 1) socket.send({ type: "sync", since: version });
        break;
      case "game.move_undone":
        showGame(message.state);
        break;
      case "game.finished":
        if (message.summary) showNumbers(message.summary);
        stat("outcome").textContent = outcomeText(message.outcome);
        showTitle(message.outcome);
        break;
      default:
        break;
    }
    document.body.dataset.ready = "1";
  },
});

// Every position of the game so far, one after another (full view only: docs/live.md, replay).
root.querySelector(".replay-button").addEventListener("click", async () => {
  const answer = await socket.request({ type: "replay" });
  const caption = root.querySelector(".replay-caption");
  if (answer.type !== "replay") {
    caption.textContent = answer.message || "";
    return;
  }
  replaying = true;
  const steps = answer.steps;
  board.render(answer.start);
  for (const [i, step] of steps.entries()) {
    await new Promise((resolve) => setTimeout(resolve, 400));
    const before = i === 0 ? answer.start : steps[i - 1].state;
    board.render(step.state);
    caption.textContent = fmt(_("Move %(n)s of %(total)s: %(move)s"), { n: step.number, total: steps.length, move: moveText(before, step.move) });
  }
  replaying = false;
  if (latest) showGame(latest);
});
