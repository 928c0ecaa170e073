// Before packaging: the extension carries its own copies of the files it shares with other editors
// (the TextMate grammar and the language configuration, generated and kept in editors/) and the
// project's license. Fails when one is missing, so a package never ships without them.
const fs = require("fs");
const path = require("path");

const here = path.join(__dirname, "..");
const copies = [
  ["../grimorio.tmLanguage.json", "syntaxes/grimorio.tmLanguage.json"],
  ["../language-configuration.json", "language-configuration.json"],
  ["../../LICENSE", "LICENSE"],
];
for (const [from, to] of copies) {
  const source = path.join(here, from);
  const target = path.join(here, to);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.copyFileSync(source, target);
}
