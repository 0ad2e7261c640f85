// Web Workers for a site opened from disk. Browsers refuse `new Worker(...)` on file:// pages, so the
// search would never start; here a worker runs in a hidden same-origin iframe instead, with the same
// message passing. Online (http, https) nothing changes. The file name tells the theme's offline
// plugin that a worker shim is present, so it adds none from the network.
(function () {
  if (location.protocol !== "file:") return;

  class FileWorker extends EventTarget {
    constructor(url) {
      super();
      this.onmessage = null;
      this.onerror = null;
      this._queue = [];
      this._frame = document.createElement("iframe");
      this._frame.hidden = true;
      (document.body || document.documentElement).appendChild(this._frame);
      const scope = this._frame.contentWindow;
      scope.postMessage = (data) => setTimeout(() => this._deliver(data));
      scope.importScripts = () => {
        throw new Error("importScripts is not available to a worker of a file:// page");
      };
      const script = scope.document.createElement("script");
      script.src = new URL(url, location.href).href;
      script.onload = () => {
        const waiting = this._queue;
        this._queue = null;
        waiting.forEach((data) => this._send(data));
      };
      script.onerror = () => this._fail("cannot load the worker script " + script.src);
      scope.document.head.appendChild(script);
    }

    postMessage(data) {
      if (this._queue) this._queue.push(data);
      else setTimeout(() => this._send(data));
    }

    terminate() {
      this._frame.remove();
    }

    _send(data) {
      const scope = this._frame.contentWindow;
      if (scope) scope.dispatchEvent(new scope.MessageEvent("message", { data: data }));
    }

    _deliver(data) {
      const event = new MessageEvent("message", { data: data });
      if (typeof this.onmessage === "function") this.onmessage(event);
      this.dispatchEvent(event);
    }

    _fail(message) {
      const event = new ErrorEvent("error", { message: message });
      if (typeof this.onerror === "function") this.onerror(event);
      this.dispatchEvent(event);
    }
  }

  window.Worker = FileWorker;
})();
