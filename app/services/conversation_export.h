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
    std::string model;          // fallback for answers stored before the answering model was (schema < 3)
    std::string system_prompt;  // the conversation's today; each answer's own is in its settings_json
    std::vector<MessageRecord> messages;
};

enum class ExportFormat { Markdown, Json };

// Each answer names the model that produced it (MessageRecord::model), the system prompt it was
// asked with (its settings' "system_prompt", else the conversation's), its version among the
// regenerated answers to one question ("version k of n"; JSON: "version", "versions") and its
// citations.
std::string conversation_markdown(const ConversationExport& c);
std::string conversation_json(const ConversationExport& c);

// The file an export dialog's answer means: the format is the filter the user chose, and the
// file name gets that format's suffix when it lacks it ("notes" -> "notes.md"; "notes.json" with
// the Markdown filter -> "notes.json.md": the filter decides, the name never silently overrides it).
std::filesystem::path export_file_for(const std::filesystem::path& typed, ExportFormat format);

void export_conversation(const ConversationExport& c, const std::filesystem::path& file, ExportFormat format);
// Format by the file's suffix: ".json" gives JSON, anything else Markdown. Throws Error.
void export_conversation(const ConversationExport& c, const std::filesystem::path& file);

}  // namespace snapdoc::services
