// `npm run bench -- combinatorial`: every combinatorial semi-bandit table in one run and one report:
// the matroid experiment (CUCB, CTS, FasterCUCB as K grows; bench/matroid.mjs), then Takemura and
// Ito's (arXiv:1909.02251) Figure 2, the promotion table and the sublinear fixed-arms mode
// (bench/cls.mjs). Options go to both (--full for the papers' scale).
import matroid from './matroid.mjs';
import cls from './cls.mjs';

export default async function combinatorial(args, report) {
  report.note('## Matroid semi-bandits (bench/matroid.mjs)');
  await matroid(args, report);
  report.note('## Combinatorial linear semi-bandits, Takemura and Ito (bench/cls.mjs)');
  await cls(args, report);
}
