#include "ui/models/conversation_model.h"

#include <QDateTime>

namespace snapdoc::ui {

ConversationModel::ConversationModel(QObject* parent) : QAbstractListModel(parent) {}

int ConversationModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(items_.size());
}

QVariant ConversationModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const auto& c = items_[static_cast<std::size_t>(index.row())];
    switch (role) {
        case Qt::DisplayRole: {
            QString line = tr("%1 · %2 · %3")
                               .arg(QString::fromStdString(c.title))
                               .arg(c.message_count == 1 ? tr("1 message") : tr("%1 messages").arg(c.message_count))
                               .arg(QDateTime::fromSecsSinceEpoch(c.created_at)
                                        .toString(QStringLiteral("yyyy-MM-dd hh:mm")));
            // A search result says where it matched.
            if (!c.excerpt.empty()) line += QStringLiteral(" — ") + QString::fromStdString(c.excerpt);
            return line;
        }
        case Qt::ToolTipRole:
            return QString::fromStdString(c.model);
        case IdRole:
            return static_cast<qlonglong>(c.id);
        default:
            return {};
    }
}

void ConversationModel::set_conversations(std::vector<services::ConversationRecord> conversations) {
    beginResetModel();
    items_ = std::move(conversations);
    endResetModel();
}

int ConversationModel::row_of(int64_t id) const {
    for (std::size_t i = 0; i < items_.size(); ++i)
        if (items_[i].id == id) return static_cast<int>(i);
    return -1;
}

}  // namespace snapdoc::ui
