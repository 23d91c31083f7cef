// A real, tiny SentencePiece tokenizer for self-contained tests: trained on the spot with the
// library's own trainer, so synthetic test models get genuine BPE behaviour (merges, byte
// fallback, the dummy prefix) without any fixture files.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace snapdoc {

// Trains a BPE model (Llama-style settings: identity normalizer, dummy prefix, runs of spaces kept,
// <unk>=0 <s>=1 </s>=2, no padding) on a small built-in English corpus written into `dir`, and
// returns the path of the .model file (named after the arguments, so several can share `dir`).
// Deterministic (same pieces and scores every time; the file also records `dir`) and quiet.
// The model has exactly `vocab_size` pieces. Ids: <unk>=0 <s>=1 </s>=2, then `control_symbols`
// (e.g. "[INST]", "<|im_start|>", as CONTROL pieces), then with byte_fallback the 256 byte pieces
// <0x00>..<0xFF>, then the 37 characters of the corpus and the merges. Valid vocab_size: 296..846
// with byte fallback, 40..590 without (plus one per control symbol at the low end). Throws
// snapdoc::Error if the library cannot train it.
std::filesystem::path train_tiny_sentencepiece(const std::filesystem::path& dir, int vocab_size = 320,
                                               bool byte_fallback = true,
                                               const std::vector<std::string>& control_symbols = {});

// The built-in corpus (a few KB of varied, deterministic English sentences, one per line).
std::string tiny_training_corpus();

}  // namespace snapdoc
