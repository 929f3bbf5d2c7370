// Draws a game's visible() view: the pyramid as overlapping rows, the stock, the card in play
// from it, the waste.  Every card is a button named for screen readers ("sette di picche, libera").
import { SUIT_SYMBOLS, cardName, isKing, rankLabel, renderFace } from "./cards.js";
import { animate, snapshot } from "./motion.js";

const _ = (s) => (window.gettext ? window.gettext(s) : s);
const fmt = (s, o) => (window.interpolate ? window.interpolate(s, o, true) : s);

export function refLabel(state, ref) {
  const code = cardAt(state, ref);
  return code ? cardName(code) : _("face-down card");
}

// A move in a few characters a player reads: "4♥ + 6♣", "K♠", or the word for a draw or redeal.
export function moveText(state, move) {
  if (move === "D") return _("a draw");
  if (move === "R") return _("a redeal");
  return move
    .split("+")
    .map((ref) => {
      const code = cardAt(state, ref);
      return code ? rankLabel(code) + SUIT_SYMBOLS[code[1]] : ref;
    })
    .join(" + ");
}

// The card code at a move reference ("3.2", "S", "W", "W2"), or null when it is unknown or gone.
export function cardAt(state, ref) {
  if (ref === "S") return state.drawn || state.stock.top;
  if (/^W\d?$/.test(ref)) {
    const depth = ref.length > 1 ? Number(ref.slice(1)) : 1;
    return state.waste[state.waste.length - depth] || null;
  }
  const [r, c] = ref.split(".").map(Number);
  const cell = state.rows[r - 1] && state.rows[r - 1][c - 1];
  return cell && cell.card ? cell.card : null;
}

function cardButton(ref, code, { free, faceDown, playable }) {
  const el = document.createElement("button");
  el.type = "button";
  el.className = "card";
  el.dataset.ref = ref;
  if (faceDown) {
    el.classList.add("back");
    el.setAttribute("aria-label", free ? _("face-down card, free") : _("face-down card, covered"));
  } else {
    renderFace(el, code);
    el.dataset.card = code;
    if (isKing(code)) el.dataset.king = "1";
    const status = free ? _("free") : _("covered");
    el.setAttribute("aria-label", fmt(_("%(card)s, %(status)s"), { card: cardName(code), status }));
  }
  el.classList.add(free ? "free" : "blocked");
  if (playable) el.dataset.playable = "1";
  else el.setAttribute("aria-disabled", "true");
  return el;
}

export class Board {
  constructor(root, { interactive = true } = {}) {
    this.root = root;
    this.interactive = interactive;
    this.pyramid = root.querySelector(".pyramid");
    this.stockPile = root.querySelector(".stock-pile");
    this.stockSlot = root.querySelector(".stock-card");
    this.wasteSlot = root.querySelector(".waste");
  }

  render(state, { selected = null, hint = [] } = {}) {
    const focusedRef = document.activeElement && document.activeElement.dataset && document.activeElement.dataset.ref;
    const before = snapshot(this.root);
    const rows = state.rows.length;
    this.root.style.setProperty("--rows", rows);
    this.pyramid.replaceChildren();
    state.rows.forEach((row, r) => {
      row.forEach((cell, c) => {
        if (!cell) return;
        const ref = `${r + 1}.${c + 1}`;
        const el = cardButton(ref, cell.card, { free: cell.free, faceDown: !!cell.face_down, playable: cell.free && !!cell.card });
        el.style.setProperty("--r", r);
        el.style.setProperty("--c", c);
        this.pyramid.append(el);
      });
    });

    // The stock: a pile of backs with its count; tapping it draws, or turns the waste over.
    const canDraw = state.legal_moves.includes("D");
    const canRecycle = state.legal_moves.includes("R");
    this.stockPile.dataset.count = state.stock.count;
    this.stockPile.classList.toggle("empty", state.stock.count === 0);
    this.stockPile.querySelector(".count").dataset.face = state.stock.count;
    let label;
    if (canRecycle && state.recycles_unlimited) label = _("Turn the waste over (−10 points)");
    else if (canRecycle) label = fmt(_("Turn the waste over (%(n)s redeals left)"), { n: state.recycles_left });
    else if (state.stock.count > 0 && !canDraw) label = _("You may draw only when nothing can be removed");
    else if (state.stock.count > 0) label = fmt(_("Draw a card (%(n)s in the stock)"), { n: state.stock.count });
    else label = _("The stock is empty");
    this.stockPile.setAttribute("aria-label", label);
    this.stockPile.title = label;
    this.stockPile.querySelector(".action").dataset.face = canRecycle ? "↻" : state.stock.count > 0 ? "" : "∅";
    // A stock that may not be drawn yet (forty cards: a pair is on the table) still takes a tap,
    // whose refusal says why where touch shows no tooltip; only an empty, spent stock is dead.
    const waiting = state.stock.count > 0 && !canDraw;
    this.stockPile.classList.toggle("waiting", waiting);
    this.stockPile.disabled = !this.interactive || !(canDraw || canRecycle || waiting);

    const stockCode = state.drawn || state.stock.top;
    this.stockSlot.replaceChildren();
    if (stockCode) this.stockSlot.append(cardButton("S", stockCode, { free: true, playable: true }));

    this.wasteSlot.replaceChildren();
    // the waste cards in play, from the top: the rules version's (egyptian's W and W2 from version 3)
    const reach = state.waste_in_play || (state.preset === "forty-house" ? 4 : 1);
    const shown = state.waste.slice(-reach);
    shown.forEach((code, i) => {
      const depth = shown.length - i;
      const ref = depth === 1 ? "W" : `W${depth}`;
      const el = cardButton(ref, code, { free: true, playable: true });
      el.style.setProperty("--fan", i);
      this.wasteSlot.append(el);
    });
    this.wasteSlot.dataset.count = state.waste.length;
    this.wasteSlot.setAttribute("aria-label", fmt(_("Waste: %(n)s cards"), { n: state.waste.length }));

    for (const el of this.root.querySelectorAll(".card[data-ref]")) {
      if (el.dataset.ref === selected) {
        el.classList.add("selected");
        el.setAttribute("aria-pressed", "true");
      }
      if (hint.includes(el.dataset.ref)) el.classList.add("hint");
      if (!this.interactive) el.tabIndex = -1;
    }
    if (focusedRef) {
      const again = this.root.querySelector(`[data-ref="${focusedRef}"]`);
      if (again) again.focus();
      else this.focusNearest(focusedRef);
    }
    animate(this.root, before);
  }

  cardEl(ref) {
    return this.root.querySelector(`.card[data-ref="${ref}"]`);
  }

  // After a card leaves, keep the keyboard user in the pyramid: focus a free card near it.
  focusNearest(ref) {
    const free = [...this.root.querySelectorAll('.card[data-playable="1"]')];
    if (!free.length) {
      this.stockPile.focus();
      return;
    }
    const m = /^(\d+)\.(\d+)$/.exec(ref);
    if (!m) {
      free[0].focus();
      return;
    }
    const [r, c] = [Number(m[1]), Number(m[2])];
    const distance = (el) => {
      const p = /^(\d+)\.(\d+)$/.exec(el.dataset.ref);
      return p ? Math.abs(Number(p[1]) - r) * 2 + Math.abs(Number(p[2]) - c) : 99;
    };
    free.sort((a, b) => distance(a) - distance(b));
    free[0].focus();
  }
}
