#include <cstdio>

#include "app/cli/commands.h"
#include "app/cli/model_setup.h"

namespace snapdoc::cli {

int cmd_tokenize(int argc, char** argv) {
    auto flags = model_flags();
    flags.insert(flags.end(), {{{"-p", "--prompt"}}, {{"--bos"}, false}});
    const Args args(flags, argc, argv, 2);
    LoadedModel lm = load_for_cli(args, /*need_tokenizer=*/true, /*need_backend=*/false);
    std::vector<int32_t> ids;
    if (args.has("bos")) ids.push_back(lm.tokenizer->bos_id());
    const auto text_ids = lm.tokenizer->encode(args.required("prompt"));
    ids.insert(ids.end(), text_ids.begin(), text_ids.end());
    for (std::size_t i = 0; i < ids.size(); ++i) std::printf(i ? " %d" : "%d", ids[i]);
    std::printf("\n");
    return 0;
}

}  // namespace snapdoc::cli
