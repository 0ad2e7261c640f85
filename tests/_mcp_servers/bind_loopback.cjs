// Preloaded into a Node MCP server (node --require bind_loopback.cjs ...): every server it starts
// listens on 127.0.0.1 only, whatever host (or none) the program passes to listen().
"use strict";
const net = require("net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === "number" || typeof args[0] === "string") {
    const port = args[0];
    const callback = args.find((arg) => typeof arg === "function");
    return listen.call(this, { port: Number(port), host: "127.0.0.1" }, callback);
  }
  if (args[0] && typeof args[0] === "object" && !Array.isArray(args[0]) && args[0].port !== undefined) {
    return listen.call(this, { ...args[0], host: "127.0.0.1" }, ...args.slice(1));
  }
  return listen.apply(this, args);
};
