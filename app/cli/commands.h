// snapdoc-cli subcommands. Each returns the process exit status; errors are thrown as
// snapdoc::Error and reported by main() as one line on stderr.
#pragma once

namespace snapdoc::cli {

int cmd_generate(int argc, char** argv);
int cmd_tokenize(int argc, char** argv);
int cmd_eval(int argc, char** argv);
int cmd_info(int argc, char** argv);
int cmd_ask(int argc, char** argv);
int cmd_inspect(int argc, char** argv);
int cmd_prompt(int argc, char** argv);
int cmd_eval_niah(int argc, char** argv);
int cmd_eval_multi(int argc, char** argv);
int cmd_make_sample(int argc, char** argv);
int cmd_pull(int argc, char** argv);
int cmd_models(int argc, char** argv);

}  // namespace snapdoc::cli
