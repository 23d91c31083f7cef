// The messages of the conversation on screen. Owned and changed by the GUI thread only: streamed
// answer text arrives from the engine as queued signals and is appended here by the chat
// controller, so the worker never touches this model.
#pragma once

#include <QAbstractListModel>
#include <cstdint>
#include <string>
#include <vector>

namespace snapdoc::ui {

struct ChatMessage {
    int64_t id = 0;  // database id, 0 until stored
    QString role;    // "user" or "assistant"
    QString text;
    QString meta;  // one line under an answer: tokens/s, KV memory, stop reason
    bool streaming = false;
    bool failed = false;
    std::string settings_json = "{}";
    std::string stats_json = "{}";
};

class ChatModel : public QAbstractListModel {
    Q_OBJECT
public:
    enum Roles { RoleRole = Qt::UserRole + 1, MetaRole, StreamingRole, FailedRole, IdRole };

    explicit ChatModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    void set_messages(std::vector<ChatMessage> messages);
    int append(ChatMessage message);  // returns the row
    void append_text(int row, const QString& text);
    void replace(int row, ChatMessage message);
    void remove_from(int row);  // removes rows [row, end)
    const ChatMessage& at(int row) const { return messages_.at(static_cast<std::size_t>(row)); }
    const std::vector<ChatMessage>& messages() const { return messages_; }

private:
    std::vector<ChatMessage> messages_;
};

}  // namespace snapdoc::ui
