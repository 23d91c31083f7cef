#include "ui/models/library_model.h"
#include "ui/widgets/number_format.h"

#include <QFileInfo>
#include <QLocale>
#include <algorithm>

namespace snapdoc::ui {

QString document_facts(const services::DocumentRecord& d, const std::string& current_model) {
    const QLocale en(QLocale::English);
    QStringList parts;
    parts << en.formattedDataSize(d.byte_size, 1, QLocale::DataSizeTraditionalFormat);
    parts << d.format.c_str();
    // Counts differ between tokenizers: one made by another model than the loaded one is not this
    // model's count (it stayed after a model change).
    if (d.token_count && current_model.empty() && !d.token_model.empty())
        parts << QObject::tr("%1 tokens (%2)")
                     .arg(en.toString(*d.token_count), QFileInfo(QString::fromStdString(d.token_model)).fileName());
    else if (d.token_count && d.token_model == current_model)
        parts << QObject::tr("%1 tokens").arg(en.toString(*d.token_count));
    if (d.page_offsets.size() > 1) parts << QObject::tr("%1 pages").arg(with_commas(static_cast<qint64>(d.page_offsets.size())));
    return parts.join(QStringLiteral(" · "));
}

LibraryModel::LibraryModel(QObject* parent) : QAbstractListModel(parent) {}

int LibraryModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(docs_.size());
}

QVariant LibraryModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const auto& d = docs_[static_cast<std::size_t>(index.row())];
    switch (role) {
        case Qt::DisplayRole:
            return QString::fromStdString(d.title) + QStringLiteral("\n") + document_facts(d, current_model_);
        case Qt::ToolTipRole:
            return QString::fromStdString(d.path);
        case IdRole:
            return static_cast<qlonglong>(d.id);
        case PathRole:
            return QString::fromStdString(d.path);
        case TokensRole:
            return d.token_count ? QVariant(*d.token_count) : QVariant();
        case FactsRole:
            return document_facts(d, current_model_);
        default:
            return {};
    }
}

QHash<int, QByteArray> LibraryModel::roleNames() const {
    auto names = QAbstractListModel::roleNames();
    names[IdRole] = "documentId";
    names[PathRole] = "path";
    names[TokensRole] = "tokens";
    names[FactsRole] = "facts";
    return names;
}

void LibraryModel::set_documents(std::vector<services::DocumentRecord> documents) {
    // Rows keep the order they had (opening a document must not move the item under the cursor);
    // documents new to the list go on top, in the store's order (most recently opened first).
    std::vector<services::DocumentRecord> ordered;
    ordered.reserve(documents.size());
    auto known = [&](int64_t id) {
        return std::any_of(docs_.begin(), docs_.end(), [&](const auto& d) { return d.id == id; });
    };
    for (auto& d : documents)
        if (!known(d.id)) ordered.push_back(d);
    for (const auto& old : docs_)
        for (auto& d : documents)
            if (d.id == old.id) ordered.push_back(std::move(d));
    beginResetModel();
    docs_ = std::move(ordered);
    endResetModel();
}

void LibraryModel::set_current_model(const std::string& path) {
    if (path == current_model_) return;
    current_model_ = path;
    if (!docs_.empty()) emit dataChanged(index(0), index(rowCount() - 1));
}

int LibraryModel::row_of(int64_t id) const {
    for (std::size_t i = 0; i < docs_.size(); ++i)
        if (docs_[i].id == id) return static_cast<int>(i);
    return -1;
}

}  // namespace snapdoc::ui
