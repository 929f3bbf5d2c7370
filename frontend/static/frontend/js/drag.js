// Drag one card onto another with pointer events (mouse, pen and touch alike).  The drop target
// is the card nearest the pointer within a generous radius, so a shaky hand still hits it.
// A press that does not move is a tap.  While a press lasts the caller must not redraw the cards
// under it (`active`): a redrawn card is a new element, and the press would lose its card and target;
// `onEnd` says when the press is over, after its tap or drop was handled.
const THRESHOLD = 6; // pixels before a press becomes a drag
const REACH = 0.9; // drop radius, in card widths, around a card's centre

export function attachDrag(root, { canDrag, onTap, onDrop, onEnd = () => {} }) {
  let drag = null;

  function targets(source) {
    return [...root.querySelectorAll(".card[data-ref]:not(.back)")].filter((el) => el !== source);
  }

  function nearest(source, x, y) {
    const width = source.getBoundingClientRect().width;
    let best = null;
    let bestDistance = Infinity;
    for (const el of targets(source)) {
      const rect = el.getBoundingClientRect();
      // A covered card shows only its top: aim at the visible part of it.
      const visibleBottom = el.classList.contains("blocked") ? rect.top + rect.height / 2 : rect.bottom;
      const cx = rect.left + rect.width / 2;
      const cy = (rect.top + visibleBottom) / 2;
      const d = Math.hypot(x - cx, y - cy);
      if (d < bestDistance && d <= width * REACH) {
        best = el;
        bestDistance = d;
      }
    }
    return best;
  }

  function setTarget(el) {
    if (drag.target === el) return;
    if (drag.target) drag.target.classList.remove("drop-target");
    drag.target = el;
    if (el) el.classList.add("drop-target");
  }

  root.addEventListener("pointerdown", (event) => {
    if (event.button !== 0 || drag) return;
    const el = event.target.closest(".card[data-ref]");
    if (!el || !root.contains(el)) return;
    drag = { el, pointer: event.pointerId, x: event.clientX, y: event.clientY, moving: false, target: null };
    el.setPointerCapture(event.pointerId);
  });

  root.addEventListener("pointermove", (event) => {
    if (!drag || event.pointerId !== drag.pointer) return;
    const dx = event.clientX - drag.x;
    const dy = event.clientY - drag.y;
    if (!drag.moving) {
      if (Math.hypot(dx, dy) < THRESHOLD || !canDrag(drag.el)) return;
      drag.moving = true;
      drag.el.classList.add("dragging");
    }
    drag.el.style.transform = `translate(${dx}px, ${dy}px)`;
    setTarget(nearest(drag.el, event.clientX, event.clientY));
    event.preventDefault();
  });

  function finish(event, cancelled) {
    if (!drag || event.pointerId !== drag.pointer) return;
    const { el, moving, target } = drag;
    if (target) target.classList.remove("drop-target");
    drag = null;
    if (!moving) {
      if (!cancelled) onTap(el);
    } else {
      el.classList.remove("dragging");
      if (cancelled || !target) snapBack(el);
      else onDrop(el, target);
    }
    onEnd();
  }

  root.addEventListener("pointerup", (event) => finish(event, false));
  root.addEventListener("pointercancel", (event) => finish(event, true));
  // A capture lost without a pointerup (which comes first when there is one) ends the press too,
  // so the caller's held redraw is never held for good.
  root.addEventListener("lostpointercapture", (event) => finish(event, true));
  return {
    get active() {
      return drag !== null;
    },
  };
}

// Animate a card back to where it lay.
export function snapBack(el) {
  el.classList.add("snapping");
  el.style.transform = "";
  el.addEventListener("transitionend", () => el.classList.remove("snapping"), { once: true });
  setTimeout(() => el.classList.remove("snapping"), 400);
}
