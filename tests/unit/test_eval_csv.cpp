// Evaluation outputs and bookkeeping: CSV quoting and tables, budget settings, output file names,
// and the kept-set helpers (carrying a selection to another question, overlap, needle recall).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/eval/budget.h"
#include "app/eval/csv.h"
#include "app/eval/kept_sets.h"
#include "app/eval/niah.h"
#include "app/eval/output_paths.h"
#include "tests/support/temp_dir.h"

namespace snapdoc::eval {
namespace {

TEST(EvalCsv, FieldsAreQuotedOnlyWhenNeeded) {
    EXPECT_EQ(csv_field("plain"), "plain");
    EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
    EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
    EXPECT_EQ(csv_number(0.5), "0.5000");
    EXPECT_EQ(csv_number(1.0 / 3, 2), "0.33");
    EXPECT_EQ(csv_number(std::nan("")), "nan");
}

TEST(EvalCsv, TableWritesHeaderAndRows) {
    CsvTable t({"setting", "question", "accuracy"});
    t.add_row({"full", "What is the code, please?", csv_number(1)});
    t.add_row({"B=64", "x", csv_number(0.25)});
    EXPECT_EQ(t.rows(), 2u);
    EXPECT_EQ(t.str(), "setting,question,accuracy\nfull,\"What is the code, please?\",1.0000\nB=64,x,0.2500\n");
    EXPECT_ANY_THROW(t.add_row({"too", "short"}));
    const testing::TempDir tmp_dir("snapdoc-test");  // unique: ctest runs tests in parallel
    const auto path = tmp_dir / "snapdoc_test_eval.csv";
    t.write(path);
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    EXPECT_EQ(ss.str(), t.str());
}

TEST(EvalCsv, NiahReportTables) {
    NiahReport r;
    r.options.lengths = {512};
    r.options.depths = {0.0, 0.5};
    r.options.budgets = parse_budgets("full,10%");
    r.cells.assign(2, std::vector<std::vector<NiahCell>>(1, std::vector<NiahCell>(2)));
    r.cells[0][0][0] = {2, 2, 1000, 1000, 0, 0};
    r.cells[0][0][1] = {2, 1, 1000, 1000, 0, 0};
    r.cells[1][0][0] = {2, 1, 1000, 100, 1.5, 2};
    r.cells[1][0][1] = {2, 0, 1000, 100, 0.0, 2};
    const std::string csv = r.csv().str();
    EXPECT_EQ(csv,
              "setting,length,depth_percent,trials,correct,accuracy,mean_prompt_tokens,mean_budget,needle_recall\n"
              "full,512,0.0,2,2,1.0000,500.0,full,nan\n"
              "full,512,50.0,2,1,0.5000,500.0,full,nan\n"
              "10%,512,0.0,2,1,0.5000,500.0,50.0,0.7500\n"
              "10%,512,50.0,2,0,0.0000,500.0,50.0,0.0000\n");
    EXPECT_DOUBLE_EQ(r.accuracy(0), 0.75);
    EXPECT_DOUBLE_EQ(r.accuracy(1, 0), 0.25);
}

TEST(EvalBudget, ParsesAndResolves) {
    const auto b = parse_budgets("full, 64,10%,12.5%");
    ASSERT_EQ(b.size(), 4u);
    EXPECT_EQ(b[0].label(), "full");
    EXPECT_EQ(b[1].label(), "B=64");
    EXPECT_EQ(b[2].label(), "10%");
    EXPECT_EQ(b[3].file_tag(), "12p5pct");
    EXPECT_EQ(b[1].file_tag(), "b64");
    SnapKvConfig base;
    base.window = 32;
    EXPECT_FALSE(b[0].config_for(base, 1000).enabled);
    EXPECT_EQ(b[1].config_for(base, 1000).budget, 64);
    EXPECT_EQ(b[2].config_for(base, 1000).budget, 100);
    EXPECT_EQ(b[2].config_for(base, 100).budget, 33);  // at least window + 1
    EXPECT_ANY_THROW(parse_budgets("abc"));
    EXPECT_ANY_THROW(parse_budgets("0%"));
    EXPECT_ANY_THROW(parse_budgets("12x"));
    EXPECT_ANY_THROW(parse_budgets(""));
}

TEST(EvalOutputs, SettingPathsAndLabels) {
    EXPECT_EQ(setting_path("docs/niah.png", "b128").string(), "docs/niah-b128.png");
    EXPECT_EQ(setting_path("out", "full").string(), "out-full.png");
    EXPECT_EQ(model_label("resources/models/snapdoc-demo.gguf"), "SNAPDOC-DEMO");
    EXPECT_EQ(model_label("models/tinyllama/"), "TINYLLAMA");
}

TEST(EvalKeptSets, DocumentKeepCarryOverlapAndRecall) {
    // One layer, two cache heads; prompt of 20 = 12 document + 8 question tokens, window 10.
    Selection sel;
    sel.prompt_len = 20;
    sel.window = 10;
    sel.compressed = true;
    sel.cache_heads = 2;
    sel.layers = {{HeadSelection{{1, 3, 5}, {}}, HeadSelection{{0, 1, 2}, {}}}};
    const DocKeep keep = document_keep(sel, 12, 1, 2);
    // Kept prefix positions + the window's document positions 10, 11.
    EXPECT_EQ(keep[0][0], (std::vector<int32_t>{1, 3, 5, 10, 11}));
    EXPECT_EQ(keep[0][1], (std::vector<int32_t>{0, 1, 2, 10, 11}));
    EXPECT_DOUBLE_EQ(needle_recall(keep, std::vector<int32_t>{1}), 1.0);
    EXPECT_DOUBLE_EQ(needle_recall(keep, std::vector<int32_t>{3, 5}), 0.5);
    EXPECT_TRUE(std::isnan(needle_recall(keep, {})));
    EXPECT_DOUBLE_EQ(mean_jaccard(keep, keep), 1.0);
    // head 0: {1,3,5,10,11} vs {0,1,2,10,11}: 3 shared of 7.
    const DocKeep swapped = {{keep[0][1], keep[0][0]}};
    EXPECT_NEAR(mean_jaccard(keep, swapped), 3.0 / 7.0, 1e-12);

    // Carried to a prompt of 12 + 5 tokens with window 8: positions >= 9 are in the new window.
    SnapKvConfig cfg;
    const auto carried = selection_from_keep(keep, cfg, 17, 8, 2);
    EXPECT_TRUE(carried->compressed);
    EXPECT_EQ(carried->cache_heads, 2);
    EXPECT_EQ(carried->layers[0][0].kept, (std::vector<int32_t>{1, 3, 5}));
    EXPECT_EQ(carried->layers[0][1].kept, (std::vector<int32_t>{0, 1, 2}));
    EXPECT_EQ(carried->kept_entries(), 3 + 8 + 3 + 8);

    // An uncompressed selection keeps the whole document.
    Selection full;
    full.prompt_len = 20;
    full.window = 10;
    const DocKeep all = document_keep(full, 12, 1, 2);
    EXPECT_EQ(all[0][1].size(), 12u);
}

TEST(EvalKeptSets, FindTokens) {
    const std::vector<int32_t> ids{5, 7, 3, 9, 1, 3, 9};
    EXPECT_EQ(find_tokens(ids, std::vector<int32_t>{3, 9}), (std::vector<int32_t>{2, 3}));
    EXPECT_EQ(find_tokens(ids, std::vector<int32_t>{3, 9, 1}), (std::vector<int32_t>{2, 3, 4}));
    EXPECT_TRUE(find_tokens(ids, std::vector<int32_t>{4}).empty());
    EXPECT_TRUE(find_tokens(ids, {}).empty());
}

}  // namespace
}  // namespace snapdoc::eval
