// Move notation (docs/formats.md) and the optimistic update of a game view.
const PYRAMID = /^(\d+)\.(\d+)$/;

function refOrder(ref) {
  const m = PYRAMID.exec(ref);
  if (m) return [0, Number(m[1]), Number(m[2])];
  if (ref === "S") return [1, 0, 0];
  return [2, ref.length > 1 ? Number(ref.slice(1)) : 1, 0];
}

// The engine writes pairs pyramid first (top to bottom, left to right), then S, then W, W2 ...
export function normalise(refs) {
  return [...refs]
    .sort((a, b) => {
      const x = refOrder(a);
      const y = refOrder(b);
      return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
    })
    .join("+");
}

export function isRemoval(move) {
  return move.split("+").every((ref) => PYRAMID.test(ref) || /^S$|^W\d?$/.test(ref));
}

// The view after a removal the client believes legal; the server's answer replaces it.
// Draws and redeals wait for the server: the next card is not known here.
export function applyOptimistic(view, move) {
  if (!isRemoval(move)) return view;
  const state = structuredClone(view.state);
  const refs = move.split("+");
  const rowsBefore = state.rows.map((row) => row.some(Boolean));
  let pyramidCards = 0;
  for (const ref of refs) {
    const m = PYRAMID.exec(ref);
    if (m) {
      state.rows[Number(m[1]) - 1][Number(m[2]) - 1] = null;
      pyramidCards += 1;
    } else if (ref === "S") {
      if (state.drawn) state.drawn = null;
      else {
        state.stock.count -= 1;
        state.stock.top = null;
      }
    } else {
      const depth = ref.length > 1 ? Number(ref.slice(1)) : 1;
      state.waste.splice(state.waste.length - depth, 1);
    }
  }
  const last = state.rows.length - 1;
  state.rows.forEach((row, r) =>
    row.forEach((cell, c) => {
      if (cell) cell.free = r === last || (!state.rows[r + 1][c] && !state.rows[r + 1][c + 1]);
    }),
  );
  const emptied = state.rows.filter((row, r) => rowsBefore[r] && !row.some(Boolean)).length;
  state.score += (refs.length === 2 ? 20 : 10) + 10 * emptied;
  state.moves += 1;
  state.pyramid_left -= pyramidCards;
  state.legal_moves = [];
  return { ...view, moves: view.moves + 1, score: state.score, state };
}
