// Card names and faces, in the page's language (strings come from Django's JavaScriptCatalog).
const _ = (s) => (window.gettext ? window.gettext(s) : s);
const fmt = (s, o) => (window.interpolate ? window.interpolate(s, o, true) : s);

const RANK_NAMES = {
  A: () => _("ace"), 2: () => _("two"), 3: () => _("three"), 4: () => _("four"), 5: () => _("five"),
  6: () => _("six"), 7: () => _("seven"), 8: () => _("eight"), 9: () => _("nine"), T: () => _("ten"),
  J: () => _("jack"), Q: () => _("queen"), K: () => _("king"),
};
const SUIT_NAMES = { c: () => _("clubs"), d: () => _("diamonds"), h: () => _("hearts"), s: () => _("spades") };
export const SUIT_SYMBOLS = { c: "♣", d: "♦", h: "♥", s: "♠" };
const RANK_LABELS = { T: "10" };

export function cardName(code) {
  return fmt(_("%(rank)s of %(suit)s"), { rank: RANK_NAMES[code[0]](), suit: SUIT_NAMES[code[1]]() });
}

export function rankLabel(code) {
  return RANK_LABELS[code[0]] || code[0];
}

export function isRed(code) {
  return code[1] === "d" || code[1] === "h";
}

// A king leaves alone: in the 40-card presets it is worth the pair sum (10) by itself too.
export function isKing(code) {
  return code[0] === "K";
}

// Fill an element with a card face: rank and suit symbol in two corners and the middle.  The
// glyphs are drawn by CSS (attr(data-face)), so the button's name is only its aria-label.
export function renderFace(el, code) {
  el.replaceChildren();
  el.classList.add("face", isRed(code) ? "red" : "black");
  const corner = document.createElement("span");
  corner.className = "corner";
  corner.setAttribute("aria-hidden", "true");
  corner.dataset.face = rankLabel(code) + SUIT_SYMBOLS[code[1]];
  const pip = document.createElement("span");
  pip.className = "pip";
  pip.setAttribute("aria-hidden", "true");
  pip.dataset.face = SUIT_SYMBOLS[code[1]];
  const corner2 = corner.cloneNode(true);
  corner2.className = "corner low";
  el.append(corner, pip, corner2);
}
