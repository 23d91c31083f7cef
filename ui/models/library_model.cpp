#include "ui/models/library_model.h"

#include <QLocale>

namespace snapdoc::ui {

QString document_facts(const services::DocumentRecord& d) {
    const QLocale en(QLocale::English);
    QStringList parts;
    parts << en.formattedDataSize(d.byte_size, 1, QLocale::DataSizeTraditionalFormat);
    parts << d.format.c_str();
    if (d.token_count) parts << QObject::tr("%1 tokens").arg(en.toString(*d.token_count));
    if (d.page_offsets.size() > 1) parts << QObject::tr("%1 pages").arg(d.page_offsets.size());
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
            return QString::fromStdString(d.title) + QStringLiteral("\n") + document_facts(d);
        case Qt::ToolTipRole:
            return QString::fromStdString(d.path);
        case IdRole:
            return static_cast<qlonglong>(d.id);
        case PathRole:
            return QString::fromStdString(d.path);
        case TokensRole:
            return d.token_count ? QVariant(*d.token_count) : QVariant();
        case FactsRole:
            return document_facts(d);
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
    beginResetModel();
    docs_ = std::move(documents);
    endResetModel();
}

int LibraryModel::row_of(int64_t id) const {
    for (std::size_t i = 0; i < docs_.size(); ++i)
        if (docs_[i].id == id) return static_cast<int>(i);
    return -1;
}

}  // namespace snapdoc::ui
