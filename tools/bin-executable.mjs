// `npx spanlog` runs package.json's "bin" file itself, which tsc writes without the executable bit
// (npm sets it only on the bins of installed dependencies): "sh: 1: spanlog: Permission denied".
import { chmodSync, readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
for (const file of Object.values(pkg.bin)) chmodSync(new URL(`../${file}`, import.meta.url), 0o755);
