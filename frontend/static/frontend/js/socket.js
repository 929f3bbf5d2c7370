// A WebSocket that reconnects with backoff, matches answers to requests by `ref`, and keeps alive
// with `ping` (docs/live.md).  `onMessage` gets every message that is not an answer to a request.
export class LiveSocket {
  constructor(url, { onMessage, onOpen, onClose, connectUrl } = {}) {
    this.url = url;
    this.connectUrl = connectUrl || (() => this.url);
    this.onMessage = onMessage || (() => {});
    this.onOpen = onOpen || (() => {});
    this.onClose = onClose || (() => {});
    this.pending = new Map();
    this.counter = 0;
    this.retry = 500;
    this.closed = false;
    this.open = false;
    this.connect();
  }

  connect() {
    let ws;
    try {
      ws = new WebSocket(this.connectUrl());
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.open = true;
      this.retry = 500;
      this.pingTimer = setInterval(() => this.send({ type: "ping" }), 25000);
      this.onOpen();
    });
    ws.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      const waiter = message.ref && this.pending.get(message.ref);
      if (waiter) {
        this.pending.delete(message.ref);
        waiter(message);
      } else {
        this.onMessage(message);
      }
    });
    ws.addEventListener("close", (event) => {
      this.open = false;
      clearInterval(this.pingTimer);
      for (const waiter of this.pending.values()) waiter({ type: "error", code: "disconnected", message: "" });
      this.pending.clear();
      this.onClose(event);
      // 44xx: the server refused for good (not found, unauthenticated, rate limit).
      if (!this.closed && !(event.code >= 4400 && event.code < 4500)) this.scheduleReconnect();
    });
  }

  scheduleReconnect() {
    setTimeout(() => this.connect(), this.retry);
    this.retry = Math.min(this.retry * 2, 10000);
  }

  send(message) {
    if (this.open) this.ws.send(JSON.stringify(message));
    return this.open;
  }

  // Send a message and wait for the answer that carries its ref.
  request(message, timeout = 8000) {
    return new Promise((resolve) => {
      if (!this.open) {
        resolve({ type: "error", code: "disconnected", message: "" });
        return;
      }
      const ref = `r${++this.counter}`;
      const timer = setTimeout(() => {
        if (this.pending.delete(ref)) resolve({ type: "error", code: "timeout", message: "" });
      }, timeout);
      this.pending.set(ref, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      this.ws.send(JSON.stringify({ ...message, ref }));
    });
  }

  close() {
    this.closed = true;
    if (this.ws) this.ws.close();
  }
}
