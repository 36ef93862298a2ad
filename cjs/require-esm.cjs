"use strict";
// require("svc-flow") loads the ES module build itself (one copy of every module, shared with import()). Node 20.19+,
// 22.12+ and 24 can require() an ES module; older ones throw ERR_REQUIRE_ESM, which this rewords in svc-flow's terms.

/** Runs `load` (a require of svc-flow's ES module entry); Node's ERR_REQUIRE_ESM becomes one that names the fix. */
module.exports = function requireEsm(specifier, load) {
  try {
    return load();
  } catch (error) {
    if (error === null || typeof error !== "object" || error.code !== "ERR_REQUIRE_ESM") throw error;
    const refused = new Error(
      `require("${specifier}") needs a Node that can require() an ES module (20.19+, 22.12+ or 24, without ` +
        `--no-experimental-require-module); this one (${process.version}) cannot. Load it with ` +
        `\`await import("${specifier}")\`, which works on every supported Node, or upgrade Node.`,
      { cause: error },
    );
    refused.code = "ERR_REQUIRE_ESM";
    throw refused;
  }
};
