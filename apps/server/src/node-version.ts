// Imported first by main.ts, so an old Node says so in one line instead of failing somewhere inside a dependency.
// `npm start` always runs the Node 24 installed with the project; this catches running main.ts by hand.
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  console.error(
    `Shiptrail needs Node.js 22 or newer; this is ${process.version}. Start it with \`npm start\`, which uses the Node 24 installed in node_modules.`,
  );
  process.exit(1);
}
