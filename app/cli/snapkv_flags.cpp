#include "app/cli/snapkv_flags.h"

namespace snapdoc::cli {

std::vector<FlagSpec> snapkv_flags() {
    return {{{"--budget"}}, {{"--window"}}, {{"--kernel"}}, {{"--pool"}},
            {{"--gqa"}},    {{"--policy"}}, {{"--full"}, false}};
}

SnapKvConfig snapkv_config_from(const Args& args) {
    SnapKvConfig c;
    c.enabled = !args.has("full");
    c.budget = args.integer("budget", c.budget);
    c.window = args.integer("window", c.window);
    c.kernel = args.integer("kernel", c.kernel);
    c.pooling = parse_pooling(args.str("pool", "max"));
    c.gqa = parse_gqa_mode(args.str("gqa", "kv-head"));
    c.policy = parse_budget_policy(args.str("policy", "uniform"));
    c.validate();  // even with --full: a bad flag is reported, not silently ignored
    return c;
}

}  // namespace snapdoc::cli
