"use strict";
// require("svc-flow"): the ES module build through require(), which names the fix where Node cannot (require-esm.cjs).
module.exports = require("./require-esm.cjs")("svc-flow", () => require("../dist/src/index.js"));
