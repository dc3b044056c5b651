// A benchmark's options. Each benchmark keeps the one syntax it has always documented:
// `--name=value` (textArg, numberArg) or `--name value` (spacedTextArg, spacedNumberArg).
// A missing option gives the fallback as it is (not converted).

export function textArg(args, name, fallback) {
  const found = args.find((arg) => arg.startsWith(`--${name}=`));
  return found === undefined ? fallback : found.slice(name.length + 3);
}

export function numberArg(args, name, fallback) {
  const text = textArg(args, name, undefined);
  return text === undefined ? fallback : Number(text);
}

export function spacedTextArg(args, name, fallback) {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : fallback;
}

export function spacedNumberArg(args, name, fallback) {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
}
