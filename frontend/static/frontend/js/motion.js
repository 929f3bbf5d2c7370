// Motion over a board drawn at once from its state: stand-ins of cards that left fade (or fly back
// to the stock on a redeal), moved cards slide in, a win bursts; none takes input, none runs under
// prefers-reduced-motion (docs/frontend.md, Motion).
const reduce = window.matchMedia && matchMedia("(prefers-reduced-motion: reduce)");
const still = () => !reduce || reduce.matches;

function run(el, name, dx, dy, done) {
  el.style.setProperty("--dx", `${Math.round(dx)}px`);
  el.style.setProperty("--dy", `${Math.round(dy)}px`);
  el.classList.add(name);
  const end = () => done(el);
  el.addEventListener("animationend", end, { once: true });
  setTimeout(end, 900); // a hidden tab may never run it
}
const settle = (el) => el.classList.remove("arrive");
const slide = (el, from) => {
  const at = el.getBoundingClientRect();
  if (Math.abs(from.left - at.left) + Math.abs(from.top - at.top) > 2) run(el, "arrive", from.left - at.left, from.top - at.top, settle);
};
const cardsOf = (root) => [...root.querySelectorAll(".card[data-card]")];
const countOf = (root) => Number(root.querySelector(".stock-pile").dataset.count);

export function snapshot(root) {
  if (still()) return null;
  const cards = new Map(cardsOf(root).map((el) => [el.dataset.card, [el, el.getBoundingClientRect()]]));
  return { cards, stock: root.querySelector(".stock-pile").getBoundingClientRect(), count: countOf(root) };
}

export function animate(root, before) {
  if (!before || !before.cards.size) return;
  const box = root.getBoundingClientRect();
  const count = countOf(root);
  const now = new Map(cardsOf(root).map((el) => [el.dataset.card, el]));
  for (const [code, [ghost, was]] of before.cards) {
    if (now.has(code)) {
      slide(now.get(code), was);
      continue;
    }
    // the old button, out of the board now: nobody can press it or find it by its ref
    for (const key of Object.keys(ghost.dataset)) delete ghost.dataset[key];
    ghost.dataset.gone = code;
    ghost.className = ghost.className.replace(/\b(selected|drop-target|dragging|hint|refused|snapping|arrive)\b/g, "");
    ghost.classList.add("ghost");
    ghost.inert = true;
    ghost.setAttribute("aria-hidden", "true");
    ghost.style.cssText = `left:${was.left - box.left}px;top:${was.top - box.top}px`;
    root.append(ghost);
    const home = count > before.count; // a redeal: back to the stock
    run(ghost, home ? "home" : "leave", before.stock.left - was.left, before.stock.top - was.top, (el) => el.remove());
  }
  // after a draw, a card new to the piles comes off the stock
  if (count < before.count) for (const [code, el] of now) if (!before.cards.has(code) && el.closest(".stock-card, .waste")) slide(el, before.stock);
}

export function celebrate(host) {
  if (still()) return;
  const burst = document.createElement("div");
  burst.className = "celebration";
  burst.setAttribute("aria-hidden", "true");
  for (let i = 0; i < 16; i++) {
    const suit = burst.appendChild(document.createElement("span"));
    suit.textContent = "♠♥♣♦"[i % 4];
    suit.style.cssText = `--dx:${Math.cos(i / 2.55) * 150}px;--dy:${Math.sin(i / 2.55) * 120}px;animation-delay:${(i % 3) * 90}ms`;
  }
  host.append(burst);
  setTimeout(() => burst.remove(), 2200);
}
