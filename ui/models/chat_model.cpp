#include "ui/models/chat_model.h"

namespace snapdoc::ui {

ChatModel::ChatModel(QObject* parent) : QAbstractListModel(parent) {}

int ChatModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(messages_.size());
}

QVariant ChatModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const ChatMessage& m = messages_[static_cast<std::size_t>(index.row())];
    switch (role) {
        case Qt::DisplayRole:
        case Qt::EditRole:
            return m.text;
        case Qt::ToolTipRole:
            return m.meta.isEmpty() ? QVariant() : QVariant(m.meta);
        case RoleRole:
            return m.role;
        case MetaRole:
            return m.meta;
        case StreamingRole:
            return m.streaming;
        case FailedRole:
            return m.failed;
        case IdRole:
            return static_cast<qlonglong>(m.id);
        default:
            return {};
    }
}

QHash<int, QByteArray> ChatModel::roleNames() const {
    auto names = QAbstractListModel::roleNames();
    names[RoleRole] = "role";
    names[MetaRole] = "meta";
    names[StreamingRole] = "streaming";
    names[FailedRole] = "failed";
    names[IdRole] = "messageId";
    return names;
}

void ChatModel::set_messages(std::vector<ChatMessage> messages) {
    beginResetModel();
    messages_ = std::move(messages);
    endResetModel();
}

int ChatModel::append(ChatMessage message) {
    const int row = static_cast<int>(messages_.size());
    beginInsertRows({}, row, row);
    messages_.push_back(std::move(message));
    endInsertRows();
    return row;
}

void ChatModel::append_text(int row, const QString& text) {
    if (row < 0 || row >= rowCount()) return;
    messages_[static_cast<std::size_t>(row)].text += text;
    const QModelIndex i = index(row);
    emit dataChanged(i, i, {Qt::DisplayRole, Qt::EditRole});
}

void ChatModel::replace(int row, ChatMessage message) {
    if (row < 0 || row >= rowCount()) return;
    messages_[static_cast<std::size_t>(row)] = std::move(message);
    const QModelIndex i = index(row);
    emit dataChanged(i, i);
}

void ChatModel::remove_from(int row) {
    if (row < 0 || row >= rowCount()) return;
    beginRemoveRows({}, row, rowCount() - 1);
    messages_.resize(static_cast<std::size_t>(row));
    endRemoveRows();
}

}  // namespace snapdoc::ui
