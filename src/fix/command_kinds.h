// What a fix's command does to the machine and to the session that runs it,
// judged from checks/data/fix_commands.json: `rocm-doctor fix` runs only what
// changes the machine from a child shell, and --fix-script moves the rest.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rocm_doctor {

enum class CommandKind {
  changes,      // changes the machine: fix runs it
  reads,        // only reads and prints (dmesg, cat, rocm-smi --show...): nothing to apply
  reboot,       // ends every session: never run by fix, the user reboots
  session,      // only means something in the user's own shell (export, newgrp)
  interactive,  // needs a person at an editor or prompt (sudoedit, mokutil --import)
  unsafe,       // holds control characters: shown escaped, never run
};

std::string_view to_string(CommandKind kind);

// The kind of one command line as a fix prints it (a leading `sudo` is
// looked through; a pipeline or list takes the strongest of its parts).
CommandKind command_kind(std::string_view command);

// Splits a command line into its simple commands at |, ||, && and ; outside
// quotes; `redirects` is set when a part writes into a file with > or >>
// (other than /dev/null).
struct CommandParts {
  std::vector<std::string> parts;
  bool redirects = false;
};
CommandParts split_command(std::string_view command);

}  // namespace rocm_doctor
