// The table a player plays at: draws the view, turns drags, taps and keys into moves, shows each
// move at once and takes it back if the server refuses it.
import { Board, cardAt, refLabel } from "./board.js";
import { isKing } from "./cards.js";
import { attachDrag, snapBack } from "./drag.js";
import { applyOptimistic, isRemoval, normalise } from "./moves.js";
import { localReason } from "./reasons.js";

const _ = (s) => (window.gettext ? window.gettext(s) : s);
const fmt = (s, o) => (window.interpolate ? window.interpolate(s, o, true) : s);
// Refusals that say "not now" rather than "not by the rules" (socket and REST codes).
export const RETRY_LATER = new Set(["unavailable", "rate_limited", "throttled"]);

export class Table {
  constructor(root, { game, transport, onChange, onFinished }) {
    this.root = root;
    this.board = new Board(root.querySelector(".board"));
    this.transport = transport;
    this.onChange = onChange || (() => {});
    this.onFinished = onFinished || (() => {});
    this.confirmed = game;
    this.shown = game;
    this.queue = [];
    this.busy = false;
    this.selected = null;
    this.hint = [];
    this.live = root.querySelector(".announce");
    this.toast = root.querySelector(".toast");
    this.bind();
    this.render();
  }

  get state() {
    return this.shown.state;
  }

  get over() {
    return this.shown.outcome !== "in_progress" || this.state.outcome !== "in_progress";
  }

  render() {
    // A redraw under a finger or pointer that is still pressed waits for its release (drag.js).
    this.stale = this.press.active;
    if (this.stale) return;
    this.board.render(this.state, { selected: this.selected, hint: this.hint });
    this.renderHouseMoves();
    this.root.classList.toggle("pending", this.busy || this.queue.length > 0);
    this.root.dataset.confirmed = this.confirmed.moves;
    this.onChange(this.shown);
  }

  // forty-house's two house rules have no card to drag: put the drawn card back (B<n>) and
  // return the first three (T) are buttons, shown only while the rules allow them.
  renderHouseMoves() {
    const box = this.board.root.querySelector(".house-moves");
    if (!box) return;
    const putBacks = this.state.legal_moves.filter((move) => /^B\d+$/.test(move));
    const returnThree = this.state.legal_moves.includes("T");
    box.replaceChildren();
    box.hidden = !putBacks.length && !returnThree;
    if (returnThree) {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = _("Return the first three cards to the stock");
      button.addEventListener("click", () => this.play("T"));
      box.append(button);
    }
    if (putBacks.length) {
      const select = document.createElement("select");
      select.setAttribute("aria-label", _("How many stock cards to put it under"));
      for (const move of putBacks) select.append(new Option(move.slice(1), move));
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = _("Put the drawn card back under");
      button.addEventListener("click", () => this.play(select.value));
      box.append(button, select);
    }
  }

  announce(text) {
    this.live.textContent = "";
    // A fresh text node each time, so screen readers read a repeated message again.
    setTimeout(() => (this.live.textContent = text), 30);
  }

  flash(text) {
    this.toast.textContent = text;
    this.toast.hidden = false;
    clearTimeout(this.toastTimer);
    this.toastTimer = setTimeout(() => (this.toast.hidden = true), 3500);
    this.announce(text);
  }

  // ------------------------------------------------------------ moves

  describe(move) {
    if (move === "D") return _("Card drawn");
    if (move === "R") return _("Waste turned over");
    const refs = move.split("+");
    if (refs.length === 1) return fmt(_("%(card)s removed"), { card: refLabel(this.state, refs[0]) });
    return fmt(_("%(a)s and %(b)s removed"), { a: refLabel(this.state, refs[0]), b: refLabel(this.state, refs[1]) });
  }

  play(move) {
    if (this.over) return;
    this.selected = null;
    this.hint = [];
    const legal = this.state.legal_moves.includes(move);
    if (legal) {
      this.announce(this.describe(move));
      if (isRemoval(move)) this.shown = applyOptimistic(this.shown, move);
    }
    this.queue.push(move);
    this.render();
    this.pump();
  }

  async pump() {
    if (this.busy || !this.queue.length) return;
    this.busy = true;
    const move = this.queue.shift();
    const result = await this.transport.move(move, this.confirmed.moves);
    this.busy = false;
    if (result.ok) {
      this.accept(result.game);
    } else {
      await this.refuse(result, move);
    }
    this.pump();
  }

  accept(game) {
    const wasOver = this.confirmed.outcome !== "in_progress";
    this.confirmed = game;
    this.shown = this.queue.reduce((view, queued) => applyOptimistic(view, queued), game);
    this.render();
    if (!wasOver && game.outcome !== "in_progress") this.onFinished(game);
  }

  async refuse(result, move) {
    this.queue = [];
    this.shown = this.confirmed;
    if (result.code === "stale") {
      const fresh = await this.transport.reload();
      if (fresh.ok) this.confirmed = this.shown = fresh.game;
    }
    this.render();
    for (const ref of move.split("+")) {
      const el = this.board.cardEl(ref);
      if (el) el.classList.add("refused");
    }
    if (RETRY_LATER.has(result.code)) {
      // Not a rule: the server could not take the move now (database down, too many moves).
      this.flash(_("The move was not made: the server is busy, try again in a few seconds."));
      return;
    }
    this.flash(fmt(_("Not allowed: %(reason)s"), { reason: localReason(result.message) || _("the server refused the move") }));
  }

  // Another tab (or the REST API) moved this game: follow it unless a move of ours is in flight.
  follow(game) {
    if (this.busy || this.queue.length || game.moves < this.confirmed.moves) return;
    const wasOver = this.confirmed.outcome !== "in_progress";
    this.confirmed = this.shown = game;
    this.render();
    if (!wasOver && game.outcome !== "in_progress") this.onFinished(game);
  }

  replace(game) {
    this.queue = [];
    this.confirmed = this.shown = game;
    this.render();
  }

  draw() {
    if (this.state.legal_moves.includes("R")) this.play("R");
    else this.play("D");
  }

  // ------------------------------------------------------------ input

  bind() {
    const board = this.board.root;
    this.press = attachDrag(board, {
      canDrag: (el) => !this.over && el.dataset.playable === "1",
      onTap: (el) => this.tap(el),
      onDrop: (el, target) => this.drop(el, target),
      onEnd: () => this.stale && this.render(),
    });
    this.board.stockPile.addEventListener("click", () => this.draw());
    board.addEventListener("keydown", (event) => this.key(event));
    document.addEventListener("keydown", (event) => {
      if (event.target.closest("input, textarea, select, dialog")) return;
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      if (event.key === "d" || event.key === "D") {
        event.preventDefault();
        if (this.state.legal_moves.includes("D") || !this.state.legal_moves.includes("R")) this.play("D");
      } else if (event.key === "r" || event.key === "R") {
        event.preventDefault();
        this.play("R");
      }
    });
  }

  // Tap-to-pair: a tap chooses a free card (a king leaves at once), a tap on its partner pairs
  // them, a second tap on the chosen card lets it go; a king tapped while a card is chosen
  // leaves, and the choice with it.
  tap(el) {
    if (this.over) return;
    const code = cardAt(this.state, el.dataset.ref);
    if (this.selected !== null && this.selected !== el.dataset.ref && code && isKing(code)) this.selected = null;
    this.choose(el);
  }

  drop(el, target) {
    const move = normalise([el.dataset.ref, target.dataset.ref]);
    if (!this.state.legal_moves.includes(move)) snapBack(el);
    this.play(move);
  }

  key(event) {
    const el = event.target.closest(".card[data-ref]");
    if (!el) return;
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      this.choose(el);
    } else if (event.key === "Escape") {
      this.selected = null;
      this.render();
      this.announce(_("Selection cleared"));
    } else if (event.key.startsWith("Arrow")) {
      event.preventDefault();
      this.moveFocus(el, event.key);
    }
  }

  // Keyboard play: choose a free card, then its partner; a king leaves at once.
  choose(el) {
    if (this.over) return;
    const ref = el.dataset.ref;
    const code = cardAt(this.state, ref);
    if (this.selected === null) {
      if (code && isKing(code)) {
        this.play(ref);
        return;
      }
      if (el.dataset.playable !== "1") {
        this.flash(fmt(_("%(card)s is not free"), { card: refLabel(this.state, ref) }));
        return;
      }
      this.selected = ref;
      this.render();
      this.announce(fmt(_("%(card)s selected: now choose its partner"), { card: refLabel(this.state, ref) }));
      return;
    }
    if (this.selected === ref) {
      this.selected = null;
      this.render();
      this.announce(_("Selection cleared"));
      return;
    }
    const move = normalise([this.selected, ref]);
    this.play(move);
  }

  moveFocus(el, key) {
    const cards = [...this.board.root.querySelectorAll(".card[data-ref]"), this.board.stockPile];
    const here = el.getBoundingClientRect();
    const [dx, dy] = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[key];
    let best = null;
    let bestScore = Infinity;
    for (const other of cards) {
      if (other === el) continue;
      const rect = other.getBoundingClientRect();
      const vx = rect.left + rect.width / 2 - (here.left + here.width / 2);
      const vy = rect.top + rect.height / 2 - (here.top + here.height / 2);
      const along = vx * dx + vy * dy;
      if (along <= 1) continue;
      const across = Math.abs(vx * dy) + Math.abs(vy * dx);
      const score = along + across * 2;
      if (score < bestScore) {
        best = other;
        bestScore = score;
      }
    }
    if (best) best.focus();
  }

  async undo() {
    if (this.busy || this.queue.length) return;
    this.busy = true;
    const result = await this.transport.undo(this.confirmed.moves);
    this.busy = false;
    if (result.ok) {
      this.replace(result.game);
      this.announce(_("Move taken back"));
    } else this.flash(result.message);
  }

  showHint(move) {
    this.hint = move.split("+");
    this.render();
    const text = move === "D" ? _("Draw a card") : move === "R" ? _("Turn the waste over") : this.describeHint(move);
    this.flash(fmt(_("Hint: %(move)s"), { move: text }));
  }

  describeHint(move) {
    return move
      .split("+")
      .map((ref) => refLabel(this.state, ref))
      .join(" + ");
  }
}
