"""`grimorio completion bash|zsh|fish`: a shell completion script, made from the command line's own parser.

The script completes the commands, each command's options, the values of
options with a fixed set of choices (--format text|jsonl), edition names
after --edition (asked of `grimorio editions` when completing, so editions in
--rules folders of the user's own are not known, but the bundled and nearby
ones are), and file names elsewhere. Load it with, for example:

    source <(grimorio completion bash)                       # in ~/.bashrc
    source <(grimorio completion zsh)                        # in ~/.zshrc (after compinit)
    grimorio completion fish > ~/.config/fish/completions/grimorio.fish
"""
from __future__ import annotations

import argparse

from ...dsl.records import dataclass

SHELLS = ("bash", "zsh", "fish")
# The editions `grimorio editions` lists: the lines before its blank line (modules follow it), first word.
EDITIONS = "grimorio editions 2>/dev/null | sed -n '/^$/q;p' | cut -d' ' -f1"
BASH_EDITIONS = f"_grimorio_editions() {{ {EDITIONS}; }}"          # bash and zsh alike


@dataclass(frozen=True)
class Option:
    names: tuple            # "--seed", "-q", ...
    help: str
    takes: str              # "" (a flag), "choice", "edition", "folder", "file" or "value"
    choices: tuple = ()


@dataclass(frozen=True)
class Command:
    name: str
    help: str
    options: tuple
    words: tuple = ()       # the choices of its positional argument (completion: bash, zsh, fish); else files


def commands(parser: argparse.ArgumentParser) -> list[Command]:
    """Each command of the parser, with its options."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {a.dest: a.help or "" for a in sub._choices_actions}
    return [Command(name, helps.get(name, ""), tuple(_options(p)), _words(p)) for name, p in sub.choices.items()]


def _words(parser) -> tuple:
    return next((tuple(map(str, a.choices)) for a in parser._actions if not a.option_strings and a.choices), ())


def top_options(parser: argparse.ArgumentParser) -> list[Option]:
    return list(_options(parser))


def _options(parser):
    for a in parser._actions:
        if a.option_strings:
            yield Option(tuple(a.option_strings), _plain(a.help or ""), _takes(a), tuple(a.choices or ()))


def _takes(a: argparse.Action) -> str:
    if a.nargs == 0:
        return ""
    if a.choices:
        return "choice"
    if "--edition" in a.option_strings:
        return "edition"
    return {"DIR": "folder", "FILE": "file", "FILE.html": "file", "FILE.xml": "file"}.get(a.metavar or "", "value")


def _plain(text: str) -> str:
    """Help text safe inside the scripts' quotes."""
    return text.replace("'", "").replace('"', "").replace("[", "(").replace("]", ")").replace(":", " -")


def script(shell: str, parser: argparse.ArgumentParser) -> str:
    return {"bash": _bash, "zsh": _zsh, "fish": _fish}[shell](commands(parser), top_options(parser))


# ------------------------------------------------------------------ bash

def _bash(cmds: list[Command], top: list[Option]) -> str:
    words = " ".join([c.name for c in cmds] + [n for o in top for n in o.names])
    options = "\n".join(f'        {c.name}) opts="{" ".join(n for o in c.options for n in o.names)}"; '
                        f'words="{" ".join(c.words)}" ;;' for c in cmds)
    values = []
    for c in cmds:
        for o in c.options:
            pattern = "|".join(f'"{c.name} {n}"' for n in o.names)
            if o.takes == "choice":
                values.append(f'        {pattern}) COMPREPLY=($(compgen -W "{" ".join(map(str, o.choices))}" -- "$cur")); return ;;')
            elif o.takes == "edition":
                values.append(f'        {pattern}) COMPREPLY=($(compgen -W "$(_grimorio_editions)" -- "$cur")); return ;;')
            elif o.takes == "folder":
                values.append(f'        {pattern}) COMPREPLY=($(compgen -d -- "$cur")); return ;;')
            elif o.takes == "value":
                values.append(f'        {pattern}) COMPREPLY=(); return ;;')
    return f"""# bash completion for grimorio (grimorio completion bash)
{BASH_EDITIONS}
_grimorio() {{
    local cur prev cmd opts words
    cur="${{COMP_WORDS[COMP_CWORD]}}"
    prev="${{COMP_WORDS[COMP_CWORD-1]}}"
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "{words}" -- "$cur"))
        return
    fi
    cmd="${{COMP_WORDS[1]}}"
    case "$cmd $prev" in
{chr(10).join(values)}
    esac
    case "$cmd" in
{options}
        *) opts=""; words="" ;;
    esac
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return
    fi
    if [ -n "$words" ]; then
        COMPREPLY=($(compgen -W "$words" -- "$cur"))
        return
    fi
    COMPREPLY=($(compgen -f -- "$cur"))
}}
complete -o filenames -o bashdefault -F _grimorio grimorio
"""


# ------------------------------------------------------------------ zsh

def _zsh(cmds: list[Command], top: list[Option]) -> str:
    described = "\n".join(f"    '{c.name}:{_plain(c.help)}'" for c in cmds)
    cases = "\n".join(f"    {c.name})\n      _arguments -s {' '.join(_zsh_spec(o) for o in c.options)} "
                      + (f"'1:{c.name}:({' '.join(c.words)})'" if c.words else "'*:file:_files'") + " ;;"
                      for c in cmds)
    return f"""#compdef grimorio
# zsh completion for grimorio (grimorio completion zsh)
{BASH_EDITIONS}
_grimorio() {{
  local -a commands
  commands=(
{described}
  )
  if (( CURRENT == 2 )); then
    _describe 'command' commands
    _arguments '--version[print the version]' '--help[show help]'
    return
  fi
  local cmd=${{words[2]}}
  shift words
  (( CURRENT-- ))
  case $cmd in
{cases}
  esac
}}
if [ "$funcstack[1]" = "_grimorio" ]; then
  _grimorio "$@"
else
  compdef _grimorio grimorio
fi
"""


def _zsh_spec(o: Option) -> str:
    value = {"": "", "choice": f":value:({' '.join(map(str, o.choices))})", "folder": ":folder:_files -/",
             "file": ":file:_files", "edition": ":edition:($(_grimorio_editions))", "value": ":value: "}[o.takes]
    if len(o.names) > 1:
        return f"'({' '.join(o.names)})'{{{','.join(o.names)}}}'[{o.help}]{value}'"
    return f"'{o.names[0]}[{o.help}]{value}'"


# ------------------------------------------------------------------ fish

def _fish(cmds: list[Command], top: list[Option]) -> str:
    names = " ".join(c.name for c in cmds)
    lines = ["# fish completion for grimorio (grimorio completion fish)",
             f"function __grimorio_editions; {EDITIONS}; end", "complete -c grimorio -f",
             "complete -c grimorio -n '__fish_use_subcommand' -l version -d 'print the version'"]
    lines += [f"complete -c grimorio -n '__fish_use_subcommand' -a {c.name} -d '{_plain(c.help)}'" for c in cmds]
    for c in cmds:
        when = f"-n '__fish_seen_subcommand_from {c.name}'"
        lines.append(f"complete -c grimorio {when} " + (f"-x -a '{' '.join(c.words)}'" if c.words else "-F"))
        for o in c.options:
            flags = " ".join(f"-l {n[2:]}" if n.startswith("--") else f"-s {n[1:]}" for n in o.names)
            value = {"": "", "choice": f" -x -a '{' '.join(map(str, o.choices))}'", "folder": " -r -a '(__fish_complete_directories)'",
                     "file": " -r -F", "edition": " -x -a '(__grimorio_editions)'", "value": " -x"}[o.takes]
            lines.append(f"complete -c grimorio {when} {flags}{value} -d '{o.help}'")
    lines.append(f"# commands: {names}")
    return "\n".join(lines) + "\n"
