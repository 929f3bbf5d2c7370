// The play page of a daily game (ranked or practice).
import { ApiError, api } from "./api.js";
import { Board, moveText } from "./board.js";
import { RETRY_LATER, Table } from "./game.js";
import { celebrate } from "./motion.js";
import { copyText, shareText } from "./share.js";
import { DailyTransport } from "./transport.js";

const _ = (s) => (window.gettext ? window.gettext(s) : s);
const fmt = (s, o) => (window.interpolate ? window.interpolate(s, o, true) : s);

const config = JSON.parse(document.getElementById("play-config").textContent);
const root = document.querySelector(".play");
const status = {
  score: root.querySelector("[data-stat=score]"),
  moves: root.querySelector("[data-stat=moves]"),
  redeals: root.querySelector("[data-stat=redeals]"),
  left: root.querySelector("[data-stat=left]"),
};

const unclearable = root.querySelector("[data-notice=unclearable]");

let table;
const transport = new DailyTransport(config.game.id, { onEvent: (message) => onEvent(message) });

function showStatus(view) {
  const state = view.state;
  status.score.textContent = state.score;
  status.moves.textContent = state.moves;
  status.redeals.textContent = state.recycles_unlimited ? "∞" : state.recycles_left;
  status.left.textContent = state.pyramid_left;
  transport.version = view.moves;
  // the rules play on once the pyramid can no longer be cleared: say so, and offer to end it here
  unclearable.hidden = !(state.pyramid_clearable === false && view.outcome === "in_progress" && state.outcome === "in_progress");
}

function onEvent(message) {
  if (!table) return;
  if (message.type === "state") document.body.dataset.live = "1";
  if (message.type === "state" && message.game) table.follow(message.game);
  else if (message.type === "game.move_made" || message.type === "game.move_undone") {
    if (message.state) table.follow(message.state);
  } else if (message.type === "game.finished" && message.version !== table.confirmed.moves) {
    transport.reload().then((fresh) => fresh.ok && table.follow(fresh.game));
  }
}

// ------------------------------------------------------------ the end of a game

// The result stays on the page once the game is over (a reload shows it again), above the board.
const panel = document.getElementById("result");

async function finished(view, live = true) {
  const state = view.state;
  const won = view.outcome === "won";
  const endedHere = view.outcome === "resigned" && state.pyramid_clearable === false;
  panel.querySelector(".title").textContent = won
    ? _("You cleared the pyramid!")
    : endedHere
      ? _("You ended the game: the pyramid could no longer be cleared")
      : view.outcome === "resigned"
        ? _("You gave up")
        : _("No move is left");
  panel.querySelector(".final-score").textContent = view.score;
  const par = config.challenge.par;
  panel.querySelector(".vs-par").textContent =
    par == null
      ? ""
      : view.score === par
        ? _("level with par")
        : view.score > par
          ? fmt(_("%(n)s above par"), { n: view.score - par })
          : fmt(_("%(n)s below par"), { n: par - view.score });
  panel.querySelector(".par").textContent = par == null ? "–" : par;
  const share = panel.querySelector(".share");
  const text = shareText({ state, dayNumber: config.challenge.day_number, presetLabel: config.challenge.preset_label, score: view.score, par, won });
  share.onclick = async () => {
    const ok = await copyText(text);
    panel.querySelector(".share-done").textContent = ok ? _("Copied: paste it anywhere") : text;
  };
  panel.querySelector(".share-preview").textContent = text;
  const review = panel.querySelector(".review");
  review.hidden = true;
  // a finished game takes no more moves: its buttons go, and the result takes their place
  for (const button of root.querySelectorAll(".controls button")) {
    button.disabled = true;
    button.hidden = true;
  }
  unclearable.hidden = true;
  const shown = !panel.hidden;
  panel.hidden = false;
  if (live && !shown) {
    panel.scrollIntoView({ block: "start", behavior: "smooth" });
    panel.focus({ preventScroll: true });
  }
  if (won && live) celebrate(panel);
  if (view.ranked) showRank();
  if (!won) loadReview();
}

// Where the score stands on the challenge's board, and the players around it.
async function showRank() {
  try {
    const board = await api("GET", `/api/leaderboards/challenges/${config.challenge.id}/?around=me&radius=2`);
    const rank = panel.querySelector(".rank");
    if (board.my_rank) rank.textContent = fmt(_("Rank %(rank)s of %(total)s"), { rank: board.my_rank, total: board.total });
    else {
      // a score that does not rank says where it would stand, and why it does not (docs/fairplay.md, Standing)
      const me = board.me || {};
      const would = me.would_rank ? fmt(_("You would be %(rank)s of %(total)s."), { rank: me.would_rank, total: board.total + 1 }) : "";
      // a guest's result has its own invitation to keep the game, which says why already
      const why = panel.querySelector(".keep") ? "" : me.standing_text || "";
      rank.textContent = [would, why].filter(Boolean).join(" ");
    }
    const around = panel.querySelector(".around");
    around.replaceChildren(
      ...board.entries.map((entry) => {
        const item = document.createElement("li");
        item.value = entry.rank;
        item.textContent = `${entry.display_name} · ${entry.points}`;
        if (entry.rank === board.my_rank) {
          item.className = "me";
          item.setAttribute("aria-current", "true");
        }
        return item;
      }),
    );
    around.hidden = board.entries.length === 0;
  } catch {
    // the rank is a nicety: the score is already shown
  }
}

// Seconds the server asked to wait before asking again (a refusal's retry_after), at least 1.
function retryAfter(error) {
  return Math.max(1, Math.ceil(Number(error.body.retry_after) || 5));
}

async function loadReview(attempt = 0) {
  const review = panel.querySelector(".review");
  const text = review.querySelector(".review-text");
  try {
    const result = await api("GET", `/api/games/${config.game.id}/review/`);
    if (result.start_verdict === "unwinnable") text.textContent = _("This deal could not be won from the start.");
    else if (result.point_of_no_return == null && (result.line.length || result.line_opens_at))
      text.textContent = _("The deal could still be won where you stopped.");
    else if (result.point_of_no_return == null) text.textContent = _("The solver could not find where the game was lost in time.");
    else if (result.line_opens_at) {
      // before the day is over the service tells the move, never the line (the knowledge rule)
      text.textContent = fmt(_("The deal could still be won until your move %(n)s. The winning line opens when the day is over."), {
        n: result.point_of_no_return,
      });
    } else {
      text.textContent = fmt(_("The deal could still be won until your move %(n)s."), { n: result.point_of_no_return });
      review.querySelector(".show-me").hidden = false;
      review.querySelector(".show-me").onclick = () => showMe(result);
    }
    review.hidden = false;
  } catch (error) {
    // the solver is busy: say so, and ask again when the server said to, a few times
    if (error instanceof ApiError && RETRY_LATER.has(error.code) && attempt < 5) {
      text.textContent = _("The solver is busy: the review comes in a moment.");
      review.hidden = false;
      setTimeout(() => loadReview(attempt + 1), Math.min(60, retryAfter(error)) * 1000);
    } else review.hidden = true;
  }
}

// Replay the player's own moves up to the one after which the deal could no longer be won, then
// point at the winning move the solver found instead.
async function showMe(result) {
  const replay = await api("GET", config.urls.replay);
  const frames = [replay.start, ...replay.steps.map((step) => step.state)];
  const pnr = result.point_of_no_return;
  const viewer = document.getElementById("replay");
  const board = new Board(viewer.querySelector(".board"), { interactive: false });
  const caption = viewer.querySelector(".caption");
  root.hidden = true;
  viewer.hidden = false;
  for (let i = 0; i < pnr; i++) {
    board.render(frames[i]);
    caption.textContent = fmt(_("Move %(n)s of %(total)s"), { n: i, total: pnr });
    await new Promise((resolve) => setTimeout(resolve, 450));
  }
  const fatal = replay.steps[pnr - 1].move;
  const better = result.line[0];
  board.render(frames[pnr - 1], { hint: better ? better.split("+") : [] });
  caption.textContent = fmt(_("Here you played %(fatal)s; the deal was lost from then on. A winning move was %(better)s."), {
    fatal: moveText(frames[pnr - 1], fatal),
    better: better ? moveText(frames[pnr - 1], better) : "–",
  });
  viewer.querySelector(".back").onclick = () => {
    viewer.hidden = true;
    root.hidden = false;
  };
}

// ------------------------------------------------------------ start

table = new Table(root, { game: config.game, transport, onChange: showStatus, onFinished: finished });
if (table.over) finished(config.game, false);

const undo = root.querySelector("[data-action=undo]");
if (undo) undo.addEventListener("click", () => table.undo());
const hint = root.querySelector("[data-action=hint]");
if (hint)
  hint.addEventListener("click", async () => {
    try {
      const answer = await api("GET", `/api/games/${config.game.id}/hint/`);
      if (answer.move) table.showHint(answer.move);
      else table.flash(_("No winning move was found from here"));
    } catch (error) {
      // the solver's caps and the proxy's say "not now", in the player's language
      if (error instanceof ApiError && RETRY_LATER.has(error.code))
        table.flash(fmt(_("The solver is busy: ask again in %(seconds)s s."), { seconds: retryAfter(error) }));
      else table.flash(error.message);
    }
  });
async function endGame(question) {
  if (!confirm(question)) return;
  const result = await transport.resign();
  if (result.ok) {
    table.replace(result.game);
    finished(result.game);
  } else table.flash(result.message);
}
const resign = root.querySelector("[data-action=resign]");
if (resign) resign.addEventListener("click", () => endGame(_("Give up this game? Your score so far counts.")));
// practice games have no Give up button, but every game may end where the pyramid can no longer be cleared
unclearable.querySelector("[data-action=end-here]").addEventListener("click", () => endGame(_("End the game here? Your score so far counts.")));
root.querySelector("[data-action=draw]").addEventListener("click", () => table.draw());
document.body.dataset.ready = "1";
