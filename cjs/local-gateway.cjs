"use strict";
// require("svc-flow/local-gateway"): the ES module build through require(), which names the fix where Node cannot (require-esm.cjs).
module.exports = require("./require-esm.cjs")("svc-flow/local-gateway", () => require("../dist/src/server/index.js"));
