// The flags the threaded build's pool Workers start with in Node. A Worker inherits its parent's
// execArgv unless given one, and Node refuses some of a host's flags in a Worker: per-process and V8
// options (--expose-gc, --max-old-space-size, --title, --prof, ...) make the constructor throw
// ERR_WORKER_INVALID_EXEC_ARGV (the package then fell back to one thread), and --input-type, which
// names the host's own string input, makes the Worker's file fail to load. The rest of the host's
// flags are its choices and stay (--enable-source-maps, --no-warnings, --conditions, a --require or
// --import preload, --experimental-*): the Workers start as any Worker of the host would.
//
// Which flags a Worker refuses is Node's to say, and differs between versions: it is learned from
// the constructor itself, whose error lists them, before any thread starts. Nothing of the process
// is changed; the learned list is kept for the other Workers of the pool.

// Options about the host's entry point (its string input), never a Worker's file: the option and,
// when given apart, its value.
const entryOptions = new Set(['--input-type', '-e', '--eval', '-p', '--print']);

const optionName = (flag) => flag.split('=', 1)[0];

// `flags` without the options named in `names`, each with its value when the value is the next entry.
function withoutOptions(flags, names) {
  const kept = [];
  for (let i = 0; i < flags.length; i++) {
    const flag = flags[i];
    if (!names.has(optionName(flag))) {
      kept.push(flag);
      continue;
    }
    // A separate value follows an option given without '=' (execArgv holds no script path).
    if (!flag.includes('=') && i + 1 < flags.length && !flags[i + 1].startsWith('-')) i++;
  }
  return kept;
}

// The option names a constructor's ERR_WORKER_INVALID_EXEC_ARGV lists ("Initiated Worker with
// invalid execArgv flags: --expose-gc, --title=x"; or Node's messages about them, "--watch requires
// specifying a file"), as names of `flags`.
function refusedNames(error, flags) {
  const listed = String(error?.message ?? '').replace(/^[^:]*:\s*/, '').split(/,\s*/);
  const names = new Set(flags.map(optionName));
  return new Set(listed.map((entry) => optionName(entry.trim().split(/\s/, 1)[0])).filter((name) => names.has(name)));
}

// A factory of pool Workers, (Worker, url) => new Worker(url, ...) with worker_threads' Worker,
// started with the host's `execArgv` minus what a Worker cannot take. A refusal Node reports in a
// form this cannot read leaves the Workers with no flags rather than no Workers.
export function poolWorkerFactory(execArgv) {
  let flags = withoutOptions(execArgv, entryOptions);
  return (Worker, url) => {
    for (;;) {
      try {
        return new Worker(url, { execArgv: flags });
      } catch (error) {
        if (error?.code !== 'ERR_WORKER_INVALID_EXEC_ARGV' || flags.length === 0) throw error;
        const refused = refusedNames(error, flags);
        flags = refused.size > 0 ? withoutOptions(flags, refused) : [];
      }
    }
  };
}
