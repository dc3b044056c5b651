// Compiled only where the lib declares Symbol.dispose (target esnext, or lib esnext.disposable):
// every object of the package must then be usable with `using` and as a global Disposable.
import init, { type SublinearBandits } from 'sublinear-bandits';

async function disposables(): Promise<void> {
  const sb: SublinearBandits = await init();
  using index = new sb.ExactIndex({ dim: 2 });
  using policy = new sb.LinUCB({ dim: 2 });
  using matroid = sb.Matroid.uniform(4, 2);
  using semi = new sb.CUCB({ matroid });
  using cls = new sb.C2UCB({ dim: 2 });
  using catalogue = new sb.Catalogue({ dim: 2 });
  const all: Disposable[] = [index, policy, matroid, semi, cls, catalogue];
  for (const each of all) each[Symbol.dispose]();
}

void disposables();
