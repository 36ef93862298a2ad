"use strict";
// require("svc-flow/workflow"): the ES module build through require(), which names the fix where Node cannot (require-esm.cjs).
module.exports = require("./require-esm.cjs")("svc-flow/workflow", () => require("../dist/src/workflow/index.js"));
