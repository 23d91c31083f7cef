#include "ui/models/chat_model.h"

#include <algorithm>

namespace snapdoc::ui {

ChatModel::ChatModel(QObject* parent) : QAbstractListModel(parent) {}

int ChatModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(messages_.size());
}

QString citation_label(const CitationView& c) {
    return QObject::tr("%1%2“%3” · tokens %4–%5 · %6%")
        .arg(c.weak ? QObject::tr("weak: ") : QString())
        .arg(c.page > 0 ? QObject::tr("p. %1 · ").arg(c.page) : QString())
        .arg(c.excerpt)
        .arg(c.first_token)
        .arg(c.last_token)
        .arg(c.weight * 100.0, 0, 'f', 0);
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
        case HeaderRole:
            return header_of(index.row());
        case CitationsRole: {
            QStringList labels;
            for (const auto& c : m.citations) labels << citation_label(c);
            return labels;
        }
        case CitationsWeakRole: {
            QVariantList weak;
            for (const auto& c : m.citations) weak << c.weak;
            return weak;
        }
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
    names[HeaderRole] = "header";
    names[CitationsRole] = "citations";
    names[CitationsWeakRole] = "citationsWeak";
    return names;
}

int ChatModel::question_row_of(int row) const {
    for (int r = std::min(row, rowCount() - 1); r >= 0; --r)
        if (messages_[static_cast<std::size_t>(r)].role == QLatin1String("user")) return r;
    return -1;
}

int ChatModel::end_of_turn(int question_row) const {
    int r = question_row + 1;
    while (r < rowCount() && messages_[static_cast<std::size_t>(r)].role != QLatin1String("user")) ++r;
    return r;
}

int ChatModel::latest_answer_row(int question_row) const {
    if (question_row < 0) return -1;
    for (int r = end_of_turn(question_row) - 1; r > question_row; --r) {
        const ChatMessage& m = messages_[static_cast<std::size_t>(r)];
        if (!m.streaming && !m.failed && !m.text.isEmpty()) return r;
    }
    return -1;
}

QString ChatModel::header_of(int row) const {
    const ChatMessage& m = messages_[static_cast<std::size_t>(row)];
    if (m.role == QLatin1String("user")) return tr("Question");
    const int q = question_row_of(row);
    const int first = q + 1, count = end_of_turn(q) - first;
    if (count <= 1) return tr("Answer");
    return tr("Answer · version %1 of %2").arg(row - first + 1).arg(count);
}

void ChatModel::changed_turn(int row, int skip_row) {
    const int q = question_row_of(row);
    if (q < 0) return;
    int first = q + 1, last = end_of_turn(q) - 1;
    // A row just inserted is new to the views already; announcing it again only re-lays out its card.
    if (skip_row == first) ++first;
    if (skip_row == last) --last;
    if (last >= first) emit dataChanged(index(first), index(last), {HeaderRole});
}

void ChatModel::set_messages(std::vector<ChatMessage> messages) {
    beginResetModel();
    messages_ = std::move(messages);
    endResetModel();
}

int ChatModel::append(ChatMessage message) {
    return insert(rowCount(), std::move(message));
}

int ChatModel::insert(int row, ChatMessage message) {
    row = std::clamp(row, 0, rowCount());
    beginInsertRows({}, row, row);
    messages_.insert(messages_.begin() + row, std::move(message));
    endInsertRows();
    // The turn's other answers now say "version k of n" (a first answer changes no other card).
    const int q = question_row_of(row);
    if (q >= 0 && q != row && end_of_turn(q) - q > 2) changed_turn(row, row);
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

void ChatModel::remove_row(int row) {
    if (row < 0 || row >= rowCount()) return;
    beginRemoveRows({}, row, row);
    messages_.erase(messages_.begin() + row);
    endRemoveRows();
    if (row < rowCount()) changed_turn(row);
    if (row > 0) changed_turn(row - 1);
}

void ChatModel::remove_from(int row) {
    if (row < 0 || row >= rowCount()) return;
    beginRemoveRows({}, row, rowCount() - 1);
    messages_.resize(static_cast<std::size_t>(row));
    endRemoveRows();
    if (row > 0) changed_turn(row - 1);
}

std::vector<HistoryTurn> conversation_turns(const std::vector<ChatMessage>& messages) {
    std::vector<HistoryTurn> turns;
    for (std::size_t q = 0; q < messages.size(); ++q) {
        if (messages[q].role != QLatin1String("user")) continue;
        const ChatMessage* answer = nullptr;
        for (std::size_t r = q + 1; r < messages.size() && messages[r].role != QLatin1String("user"); ++r)
            if (!messages[r].streaming && !messages[r].failed && !messages[r].text.isEmpty())
                answer = &messages[r];
        if (answer) turns.push_back({messages[q].text, answer->text});
    }
    return turns;
}

}  // namespace snapdoc::ui
