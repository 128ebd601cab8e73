// Search for a docs site opened from disk (file://).
//
// Material's search runs in a Web Worker, and browsers refuse to start a worker from a
// file:// page. Opened from disk, this runs the worker's script in a hidden same-origin
// iframe instead, behind the same interface the page uses (new Worker(url), postMessage,
// "message" events, terminate). Over HTTP the browser's own Worker is left alone.
(function () {
  "use strict";
  if (location.protocol !== "file:") return;

  class FileWorker extends EventTarget {
    constructor(url) {
      super();
      this.queue = [];  // messages sent before the worker's script has loaded
      this.frame = document.createElement("iframe");
      this.frame.hidden = true;
      this.frame.title = "search";
      document.body.appendChild(this.frame);
      const inside = this.frame.contentWindow;
      // the worker's postMessage(data) is a "message" event on this object
      inside.postMessage = (data) => {
        setTimeout(() => {
          const event = new MessageEvent("message", { data: data });
          this.dispatchEvent(event);
          if (typeof this.onmessage === "function") this.onmessage(event);
        });
      };
      inside.importScripts = () => {
        throw new Error("importScripts is not available to a worker run from file://");
      };
      const script = inside.document.createElement("script");
      script.src = new URL(url, location.href).href;
      script.onload = () => {
        this.inside = inside;
        this.queue.splice(0).forEach((data) => this.postMessage(data));
      };
      inside.document.head.appendChild(script);
    }

    postMessage(data) {
      if (!this.inside) {
        this.queue.push(data);
        return;
      }
      setTimeout(() => {
        this.inside.dispatchEvent(new this.inside.MessageEvent("message", { data: data }));
      });
    }

    terminate() {
      this.frame.remove();
    }
  }

  window.Worker = FileWorker;
})();
