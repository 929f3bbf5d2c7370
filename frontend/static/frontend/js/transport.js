// How a game's moves reach the server: over its play socket when it is open (docs/live.md),
// else over the REST API.  Both answer { ok, game } or { ok: false, code, message }.
import { api, socketUrl } from "./api.js";
import { LiveSocket } from "./socket.js";

function refusal(error) {
  return { ok: false, code: error.code || "error", message: error.message || "", moves: error.moves };
}

async function rest(call) {
  try {
    return { ok: true, game: await call() };
  } catch (error) {
    return refusal({ code: error.code, message: error.message, moves: error.body && error.body.moves });
  }
}

export class DailyTransport {
  constructor(gameId, { onEvent } = {}) {
    this.gameId = gameId;
    this.onEvent = onEvent || (() => {});
    this.base = `/api/games/${gameId}/`;
    if ("WebSocket" in window) {
      this.socket = new LiveSocket(socketUrl(`/ws/games/${gameId}/`), {
        onMessage: (message) => this.onEvent(message),
        connectUrl: () => socketUrl(`/ws/games/${gameId}/${this.version != null ? `?since=${this.version}` : ""}`),
      });
    }
  }

  async viaSocket(message, fallback) {
    if (this.socket && this.socket.open) {
      const answer = await this.socket.request(message);
      if (answer.type === "move.ok") return { ok: true, game: answer.game };
      if (answer.code !== "disconnected" && answer.code !== "timeout") return refusal(answer);
    }
    return rest(fallback);
  }

  move(move, seen) {
    return this.viaSocket({ type: "move", move, seen }, () => api("POST", `${this.base}moves/`, { move, seen }));
  }

  undo(seen) {
    return this.viaSocket({ type: "undo", seen }, () => api("POST", `${this.base}undo/`, { seen }));
  }

  resign() {
    return this.viaSocket({ type: "resign" }, () => api("POST", `${this.base}resign/`));
  }

  reload() {
    return rest(() => api("GET", this.base));
  }
}
