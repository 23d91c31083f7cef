// The conversations held about the current document, newest first (the chat's history picker).
#pragma once

#include <QAbstractListModel>
#include <vector>

#include "app/services/library_store.h"

namespace snapdoc::ui {

class ConversationModel : public QAbstractListModel {
    Q_OBJECT
public:
    enum Roles { IdRole = Qt::UserRole + 1 };

    explicit ConversationModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;

    void set_conversations(std::vector<services::ConversationRecord> conversations);
    int row_of(int64_t id) const;
    const services::ConversationRecord& at(int row) const { return items_.at(static_cast<std::size_t>(row)); }

private:
    std::vector<services::ConversationRecord> items_;
};

}  // namespace snapdoc::ui
