// Small vocabularies built in code for the tokenizer and chat-template fuzz targets: a byte-level
// BPE one (the 256 byte tokens, merges for a few English words, the control tokens of every chat
// template, user-defined added tokens) and a SentencePiece one of the same shape (byte fallback,
// a few merged pieces, the same control pieces). Building them takes milliseconds, once per run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/tokenizer/bpe_byte_map.h"
#include "engine/tokenizer/bpe_vocab.h"
#include "engine/tokenizer/spm_proto.h"
#include "engine/tokenizer/tokenizer.h"

namespace snapdoc::fuzzing {

// Every control marker any template inserts by id (chat_template.h), plus EOS/BOS-like pieces.
inline const std::vector<std::string>& control_markers() {
    static const std::vector<std::string> m = {
        "<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>", "<|im_start|>",
        "<|im_end|>",        "<|endoftext|>",       "<|system|>",        "<|user|>",   "<|assistant|>",
        "<|end|>",           "[INST]",              "[/INST]",           "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]",
        "<s>",               "</s>"};
    return m;
}

// Byte-level BPE with the preset pre-tokenizer `pre` ("llama-bpe", "qwen2", "gpt-2", ...).
inline Tokenizer small_bpe_tokenizer(const std::string& pre) {
    BpeVocab v;
    for (int b = 0; b < 256; ++b) v.tokens.push_back(byte_level::encode(std::string(1, static_cast<char>(b))));
    const auto merge = [&](const std::string& a, const std::string& b) {
        v.merges.emplace_back(byte_level::encode(a), byte_level::encode(b));
        v.tokens.push_back(byte_level::encode(a + b));
    };
    merge("\n", "\n");
    merge(" ", "t");
    merge(" t", "h");
    merge(" th", "e");
    merge("i", "n");
    merge("in", "g");
    merge("Q", "u");
    merge("Qu", "e");
    merge("\xC3", "\xA9");  // "é": a merge inside a multi-byte character
    merge(" ", " ");
    v.types.assign(v.tokens.size(), static_cast<int32_t>(GgufTokenType::Normal));
    for (const std::string& c : control_markers()) {
        v.tokens.push_back(c);
        v.types.push_back(static_cast<int32_t>(GgufTokenType::Control));
    }
    for (const char* u : {"<think>", "</think>", "<tool>"}) {  // user-defined: matched in text
        v.tokens.emplace_back(u);
        v.types.push_back(static_cast<int32_t>(GgufTokenType::UserDefined));
    }
    v.pre = pre;
    for (std::size_t i = 0; i < v.tokens.size(); ++i) {
        if (v.tokens[i] == "<|begin_of_text|>") v.bos_id = static_cast<int32_t>(i);
        if (v.tokens[i] == "<|endoftext|>") v.eos_id = static_cast<int32_t>(i);
    }
    v.add_bos = true;
    return Tokenizer::from_bpe_vocab(v);
}

// SentencePiece (BPE model, byte fallback, dummy prefix).
inline Tokenizer small_spm_tokenizer() {
    VocabSpec s;
    s.pieces = {"<unk>", "<s>", "</s>"};
    s.types = {static_cast<int32_t>(GgufTokenType::Unknown), static_cast<int32_t>(GgufTokenType::Control),
               static_cast<int32_t>(GgufTokenType::Control)};
    static const char* hex = "0123456789ABCDEF";
    for (int b = 0; b < 256; ++b) {
        s.pieces.push_back(std::string("<0x") + hex[b >> 4] + hex[b & 15] + ">");
        s.types.push_back(static_cast<int32_t>(GgufTokenType::Byte));
    }
    for (const char* p : {"\xE2\x96\x81", "\xE2\x96\x81t", "\xE2\x96\x81th", "\xE2\x96\x81the", "t", "h", "e", "a",
                          "n", "i", "in", "ing", "\n", "Q", "u", "Qu", "\xC3\xA9"}) {
        s.pieces.emplace_back(p);
        s.types.push_back(static_cast<int32_t>(GgufTokenType::Normal));
    }
    for (const std::string& c : control_markers()) {
        if (c == "<s>" || c == "</s>") continue;
        s.pieces.push_back(c);
        s.types.push_back(static_cast<int32_t>(GgufTokenType::Control));
    }
    s.pieces.emplace_back("<tool>");
    s.types.push_back(static_cast<int32_t>(GgufTokenType::UserDefined));
    for (std::size_t i = 0; i < s.pieces.size(); ++i) s.scores.push_back(-static_cast<float>(i));
    return Tokenizer::from_serialized_proto(serialize_sentencepiece_proto(s));
}

}  // namespace snapdoc::fuzzing
