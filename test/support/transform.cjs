/**
 * Jest's TypeScript transform: esbuild (already the bundler's) strips the types, file by file, as the tsconfig's
 * isolatedModules allows. Type-checking is `npm run typecheck`'s job.
 */
const crypto = require('node:crypto');
const esbuild = require('esbuild');

const OPTIONS = { loader: 'ts', format: 'cjs', target: 'node20', sourcemap: 'external' };

module.exports = {
  process(source, filename) {
    const { code, map } = esbuild.transformSync(source, { ...OPTIONS, sourcefile: filename });
    return { code, map };
  },
  getCacheKey(source, filename) {
    return crypto
      .createHash('sha1')
      .update(`${esbuild.version}\0${JSON.stringify(OPTIONS)}\0${filename}\0${source}`)
      .digest('hex');
  },
};
