// Motion on the board: a card that leaves fades and shrinks where it was, a card that moves (the
// drawn card from the stock, the waste fanning) slides from its old place, a recycled waste flies
// back to the stock, and a win gets a burst of suits.  The board is always drawn at once from the
// state it is given; motion is only classes and stand-in copies laid over it that take no input
// (pointer-events: none, inert), and there is none at all under prefers-reduced-motion: reduce.
const reduce = window.matchMedia && matchMedia("(prefers-reduced-motion: reduce)");
const still = () => !reduce || reduce.matches;

function settle(el, name, done) {
  el.classList.add(name);
  const end = () => done(el);
  el.addEventListener("animationend", end, { once: true });
  setTimeout(end, 900); // a hidden tab may never run the animation
}

function offset(el, dx, dy) {
  el.style.setProperty("--dx", `${Math.round(dx)}px`);
  el.style.setProperty("--dy", `${Math.round(dy)}px`);
}

// Where each face-up card is before a redraw, and the stock with it.
export function snapshot(root) {
  if (still()) return null;
  const cards = new Map();
  for (const el of root.querySelectorAll(".card[data-card]")) cards.set(el.dataset.card, [el, el.getBoundingClientRect()]);
  const stock = root.querySelector(".stock-pile");
  return { cards, stock: stock.getBoundingClientRect(), count: Number(stock.dataset.count) };
}

// After the redraw: slide what moved, leave a fading copy of what went.
export function animate(root, before) {
  if (!before || !before.cards.size) return;
  const box = root.getBoundingClientRect();
  const count = Number(root.querySelector(".stock-pile").dataset.count);
  const now = new Map([...root.querySelectorAll(".card[data-card]")].map((el) => [el.dataset.card, el]));
  const toStock = count > before.count; // a redeal: the waste goes back to the stock
  for (const [code, [old, was]] of before.cards) {
    const el = now.get(code);
    if (el) {
      const at = el.getBoundingClientRect();
      if (Math.abs(was.left - at.left) + Math.abs(was.top - at.top) > 2) {
        offset(el, was.left - at.left, was.top - at.top);
        settle(el, "arrive", (card) => card.classList.remove("arrive"));
      }
      continue;
    }
    // the old button itself, now out of the board: a stand-in nobody can press or find by ref
    const ghost = old;
    for (const key of Object.keys(ghost.dataset)) delete ghost.dataset[key];
    ghost.dataset.gone = code;
    ghost.classList.remove("selected", "drop-target", "dragging", "hint", "refused", "snapping", "arrive");
    ghost.classList.add("ghost");
    ghost.inert = true;
    ghost.tabIndex = -1;
    ghost.setAttribute("aria-hidden", "true");
    ghost.style.cssText = `left:${was.left - box.left}px;top:${was.top - box.top}px`;
    if (toStock) offset(ghost, before.stock.left - was.left, before.stock.top - was.top);
    root.append(ghost);
    settle(ghost, toStock ? "home" : "leave", (el) => el.remove());
  }
  // a card new to the piles after a draw comes off the stock
  if (count < before.count)
    for (const [code, el] of now) {
      if (before.cards.has(code) || !el.closest(".stock-card, .waste")) continue;
      const at = el.getBoundingClientRect();
      offset(el, before.stock.left - at.left, before.stock.top - at.top);
      settle(el, "arrive", (card) => card.classList.remove("arrive"));
    }
}

// A won game: suits burst from the middle of `host` and fade; gone after two seconds.
export function celebrate(host) {
  if (still()) return;
  const burst = document.createElement("div");
  burst.className = "celebration";
  burst.setAttribute("aria-hidden", "true");
  for (let i = 0; i < 16; i++) {
    const suit = document.createElement("span");
    suit.textContent = "♠♥♣♦"[i % 4];
    const angle = (i / 16) * 2 * Math.PI;
    offset(suit, Math.cos(angle) * 150, Math.sin(angle) * 120);
    suit.style.animationDelay = `${(i % 3) * 90}ms`;
    burst.append(suit);
  }
  host.append(burst);
  setTimeout(() => burst.remove(), 2200);
}
