"use strict";
// require("svc-flow/langchain"): the ES module build through require(), which names the fix where Node cannot (require-esm.cjs).
module.exports = require("./require-esm.cjs")("svc-flow/langchain", () => require("../dist/src/langchain/index.js"));
