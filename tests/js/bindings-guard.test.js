// One guard per binding (cpp/bindings/guard.hpp): every function and method the bindings register
// goes through guard<&function>, which turns any C++ exception into the pending BanditError, and no
// bound function wraps its body in a second guarded(). Read from the sources, as text.
import { readdirSync, readFileSync } from 'node:fs';
import { expect, test } from 'vitest';

const folder = new URL('../../cpp/bindings/', import.meta.url);
// Headers too: persistent_binding.hpp registers the calls every persistence family shares.
const sources = readdirSync(folder)
  .filter((name) => name.endsWith('.cpp') || name.endsWith('.hpp'))
  .map((name) => [name, readFileSync(new URL(name, folder), 'utf8')]);

test('every registration goes through guard<>', () => {
  let registrations = 0;
  for (const [name, text] of sources) {
    for (const [call] of text.matchAll(/(?:emscripten::function|\.function|\.class_function)\("\w+",\s*[^,)]+/g)) {
      registrations += 1;
      expect(call, name).toMatch(/,\s*guard<&/);
    }
  }
  expect(registrations).toBeGreaterThan(80);
});

test('no bound function guards its own body a second time', () => {
  // guard.hpp defines guarded() and calls it from guard<>, the one guard.
  for (const [name, text] of sources) if (name !== 'guard.hpp') expect(text.includes('guarded('), name).toBe(false);
});
