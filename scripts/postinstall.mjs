// After `npm install` / `npm ci`: say which Node runs the project, and why npm may have printed EBADENGINE
// warnings just before. npm itself runs on the machine's Node; every npm script runs on the Node 24 that the
// `node` dev dependency installs into node_modules/.bin (npm puts it first on PATH for scripts, this one included).
const npmNode = /\bnode\/v(\d+)\.\S*/.exec(process.env.npm_config_user_agent ?? '');
const projectMajor = Number(process.versions.node.split('.')[0]);
if (projectMajor < 22) {
  // The dev dependency is missing or was not put on PATH: a real problem, not noise.
  console.error(`shiptrail: the project needs Node 22 or newer but scripts run on Node ${process.version}; run npm install again.`);
  process.exitCode = 1;
} else if (npmNode && Number(npmNode[1]) < 22) {
  console.log(
    `shiptrail: npm ran on Node ${npmNode[0].slice(5)}, so it warned (EBADENGINE) about packages that need Node 22 or newer.\n` +
      `shiptrail: those warnings do not apply: npm start, npm test and every other script run on Node ${process.version}, installed in node_modules.`,
  );
}
