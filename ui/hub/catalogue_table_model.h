// The catalogue as a table: one row per (model, quantization) with its download size, the fit
// badge for the current document on this machine, the memory it needs, the predicted prefill and
// the longest document that fits. Shows one immutable CatalogueFit snapshot; a new one replaces it.
#pragma once

#include <QAbstractTableModel>
#include <memory>

#include "ui/hub/catalogue_fit.h"

namespace snapdoc::ui {

class CatalogueTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Model, Quant, Download, Fit, Memory, Prefill, Longest, Context, Licence, ColumnCount };
    // Item roles beyond the standard ones.
    enum Role { BadgeRole = Qt::UserRole + 1, RecommendedRole, ModelIdRole, QuantRole, LocalPathRole };

    explicit CatalogueTableModel(QObject* parent = nullptr);

    void set_fit(std::shared_ptr<const CatalogueFit> fit);
    const std::shared_ptr<const CatalogueFit>& fit() const { return fit_; }
    const CatalogueRow* row_at(int row) const;
    // The rows already in the models folder: their model file's path, by row ("" = not downloaded).
    // The Download column says "Downloaded", and the window offers Load for them.
    void set_local_paths(std::vector<QString> paths);
    QString local_path(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const CatalogueFit> fit_;
    std::vector<QString> local_paths_;
};

// The badge's words and colour, shared by the table and the window's summary line.
QString badge_label(hub::FitBadge badge);
QColor badge_color(hub::FitBadge badge);

}  // namespace snapdoc::ui
