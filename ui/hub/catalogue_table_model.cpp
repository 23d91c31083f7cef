#include "ui/hub/catalogue_table_model.h"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QGuiApplication>

#include "engine/model/model_summary.h"
#include "ui/widgets/number_format.h"
#include "ui/widgets/theme_colors.h"

namespace snapdoc::ui {

namespace {

QString bytes_text(int64_t bytes) {
    return QString::fromStdString(format_bytes(bytes));
}

QString parameters_text(const hub::CatalogueEntry& e) {
    if (!e.parameters_published.empty()) return QString::fromStdString(e.parameters_published);
    return QString::number(static_cast<double>(e.parameters) / 1e9, 'f', 2) + "B";
}

}  // namespace

QString badge_label(hub::FitBadge badge) {
    switch (badge) {
        case hub::FitBadge::Fits:
            return QObject::tr("fits");
        case hub::FitBadge::Tight:
            return QObject::tr("tight");
        case hub::FitBadge::DoesNotFit:
            return QObject::tr("does not fit");
    }
    return {};
}

QColor badge_color(hub::FitBadge badge) {
    // Pale green, amber and red on a light theme; their dark versions under a dark palette, where
    // the pale ones sat under light text.
    const QPalette palette = QGuiApplication::palette();
    switch (badge) {
        case hub::FitBadge::Fits:
            return for_palette(QColor(0xd4, 0xf0, 0xd0), palette);
        case hub::FitBadge::Tight:
            return for_palette(QColor(0xfa, 0xe8, 0xb8), palette);
        case hub::FitBadge::DoesNotFit:
            return for_palette(QColor(0xf4, 0xcc, 0xcc), palette);
    }
    return {};
}

CatalogueTableModel::CatalogueTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void CatalogueTableModel::set_fit(std::shared_ptr<const CatalogueFit> fit) {
    beginResetModel();
    fit_ = std::move(fit);
    endResetModel();
}

const CatalogueRow* CatalogueTableModel::row_at(int row) const {
    if (!fit_ || row < 0 || row >= static_cast<int>(fit_->rows.size())) return nullptr;
    return &fit_->rows[static_cast<std::size_t>(row)];
}

void CatalogueTableModel::set_local_paths(std::vector<QString> paths) {
    local_paths_ = std::move(paths);
    if (rowCount() > 0) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

QString CatalogueTableModel::local_path(int row) const {
    return row >= 0 && row < static_cast<int>(local_paths_.size()) ? local_paths_[static_cast<std::size_t>(row)]
                                                                   : QString();
}

int CatalogueTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !fit_ ? 0 : static_cast<int>(fit_->rows.size());
}

int CatalogueTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CatalogueTableModel::data(const QModelIndex& index, int role) const {
    const CatalogueRow* r = index.isValid() ? row_at(index.row()) : nullptr;
    if (!r) return {};
    const hub::FitEstimate& f = r->fit;
    const bool recommended = fit_->recommended == index.row();
    switch (role) {
        case BadgeRole:
            return static_cast<int>(f.badge);
        case RecommendedRole:
            return recommended;
        case ModelIdRole:
            return QString::fromStdString(r->entry->id);
        case QuantRole:
            return QString::fromStdString(r->file->quant);
        case LocalPathRole:
            return local_path(index.row());
        case Qt::ToolTipRole: {
            QString tip = QString::fromStdString(r->entry->repo) + "\n" + QString::fromStdString(f.reason);
            if (!r->entry->note.empty()) tip += "\n" + QString::fromStdString(r->entry->note);
            return tip;
        }
        case Qt::BackgroundRole:
            return index.column() == Fit ? QVariant(QBrush(badge_color(f.badge))) : QVariant();
        case Qt::FontRole:
            if (recommended) {
                QFont bold;
                bold.setBold(true);
                return bold;
            }
            return {};
        case Qt::DisplayRole:
            break;
        default:
            return {};
    }
    switch (index.column()) {
        case Model:
            return QString::fromStdString(r->entry->name) + " (" + parameters_text(*r->entry) + ")" +
                   (recommended ? QObject::tr("  ★ recommended") : QString());
        case Quant:
            return QString::fromStdString(r->file->quant);
        case Download:
            if (!local_path(index.row()).isEmpty())
                return QObject::tr("✓ Downloaded (%1)").arg(bytes_text(f.memory.weights));
            return (r->file->bytes ? QString() : QStringLiteral("~")) + bytes_text(f.memory.weights) +
                   (r->file->files.size() > 1 ? QObject::tr(" (%1 files)").arg(r->file->files.size())
                                              : QString());
        case Fit:
            return badge_label(f.badge);
        case Memory:
            if (!f.within_context) return QObject::tr("over context");
            return bytes_text(f.on_device ? f.memory.without_store() : f.memory.total()) +
                   (f.on_device ? QObject::tr(" GPU") : QString());
        case Prefill:
            return f.prefill_seconds < 0 ? QObject::tr("—") : short_duration(f.prefill_seconds);
        case Longest:
            return f.longest_document_tokens > 0
                       ? with_commas(f.longest_document_tokens)
                       : QObject::tr("none");
        case Context:
            return QStringLiteral("%1K").arg(r->entry->shape.context_length / 1024);
        case Licence:
            return QString::fromStdString(r->entry->licence) +
                   (r->entry->gated ? QObject::tr(" (gated)") : QString());
    }
    return {};
}

QVariant CatalogueTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
        case Model:
            return tr("Model");
        case Quant:
            return tr("Quantization");
        case Download:
            return tr("Download");
        case Fit:
            return tr("Fit");
        case Memory:
            return tr("Memory needed");
        case Prefill:
            return tr("Prefill");
        case Longest:
            return tr("Longest document (tokens)");
        case Context:
            return tr("Context");
        case Licence:
            return tr("Licence");
    }
    return {};
}

}  // namespace snapdoc::ui
