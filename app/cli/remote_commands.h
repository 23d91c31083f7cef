// snapdoc-cli's commands against a remote engine (--remote URL): `ask` and `models`. cmd_ask and
// cmd_models hand over to these when --remote is among their arguments.
#pragma once

namespace snapdoc::cli {

bool has_remote_flag(int argc, char** argv);
int cmd_ask_remote(int argc, char** argv);
int cmd_models_remote(int argc, char** argv);

}  // namespace snapdoc::cli
