// The documents in the library (from the store), most recently opened first as of when they were
// listed: rows keep their order while the app runs, new documents go on top.
#pragma once

#include <QAbstractListModel>
#include <vector>

#include "app/services/library_store.h"

namespace snapdoc::ui {

class LibraryModel : public QAbstractListModel {
    Q_OBJECT
public:
    enum Roles { IdRole = Qt::UserRole + 1, PathRole, TokensRole, FactsRole };

    explicit LibraryModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    void set_documents(std::vector<services::DocumentRecord> documents);
    // The loaded model's path ("" = none): token counts show only when that model made them.
    void set_current_model(const std::string& path);
    int row_of(int64_t id) const;  // -1 if absent
    const services::DocumentRecord& at(int row) const { return docs_.at(static_cast<std::size_t>(row)); }

private:
    std::vector<services::DocumentRecord> docs_;
    std::string current_model_;
};

// "1.2 MB · 34,567 tokens · 12 pages" for a document. The token count is the document text's with
// the tokenizer of `current_model` (the loaded model); a count another model made is left out, and
// with no model loaded it names the model it is for.
QString document_facts(const services::DocumentRecord& d, const std::string& current_model = {});

}  // namespace snapdoc::ui
