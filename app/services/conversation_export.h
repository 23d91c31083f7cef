// Exporting a conversation as Markdown (for reading) or JSON (for tools), written atomically: the
// target is either the old file or the complete new one, never half an export.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "app/services/library_store.h"

namespace snapdoc::services {

struct ConversationExport {
    std::string document_title;
    std::string document_path;
    std::string model;
    std::vector<MessageRecord> messages;
};

std::string conversation_markdown(const ConversationExport& c);
std::string conversation_json(const ConversationExport& c);

// Format chosen by the file's suffix: ".json" gives JSON, anything else Markdown. Throws Error.
void export_conversation(const ConversationExport& c, const std::filesystem::path& file);

}  // namespace snapdoc::services
