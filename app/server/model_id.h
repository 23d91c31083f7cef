// The model id the server lists in /v1/models (and answers with when a request names none): what
// an OpenAI client shows in its model picker, so it names the model loaded, not the server.
#pragma once

#include <filesystem>
#include <string>

namespace snapdoc::server {

// `alias` (--alias NAME) when given; else the model's own name (GGUF general.name); else the
// model file's name without ".gguf" (a folder's name for a Hugging Face folder).
std::string listed_model_id(const std::string& alias, const std::string& model_name,
                            const std::filesystem::path& model_path);

}  // namespace snapdoc::server
