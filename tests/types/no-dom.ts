// Compiled with lib ES2022 alone, where it must fail: the check that that setting really has no DOM
// (so the package's types passing there means they need none).
const page: URL = new URL('https://example.org/');
console.log(page);
