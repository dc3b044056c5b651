// The package from CommonJS (`require('sublinear-bandits')`): the module itself is an ES module,
// which Node 20's require() cannot load, so this entry loads it with import() when init() is called.
//   const { init } = require('sublinear-bandits');
//   const sb = await init();   // inside an async function: the same module object as from ESM
// Everything else (sb.BanditError, the classes, sb.inspectState) is on the object init() resolves to.
'use strict';

let loading;

function init(options) {
  loading ??= import('./index.js');
  return loading.then((module) => module.init(options));
}

module.exports = init;
module.exports.init = init;
module.exports.default = init;
