// Every item model under QAbstractItemModelTester while it goes through its mutations.
#include <QAbstractItemModelTester>
#include <QtTest>

#include "ui/models/chat_model.h"
#include "ui/models/conversation_model.h"
#include "ui/models/library_model.h"

using namespace snapdoc::ui;
using snapdoc::services::ConversationRecord;
using snapdoc::services::DocumentRecord;

class TestItemModels : public QObject {
    Q_OBJECT
private slots:
    void chat_model() {
        ChatModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        const int q = model.append({0, "user", "Who?", {}, false, false});
        const int a = model.append({0, "assistant", {}, {}, true, false});
        QCOMPARE(q, 0);
        QCOMPARE(a, 1);
        model.append_text(a, "Peb");
        model.append_text(a, "ble");
        QCOMPARE(changed.count(), 2);
        QCOMPARE(model.index(a).data().toString(), QString("Pebble"));
        QVERIFY(model.index(a).data(ChatModel::StreamingRole).toBool());
        ChatMessage done = model.at(a);
        done.streaming = false;
        done.meta = "3 tokens";
        model.replace(a, done);
        QCOMPARE(model.index(a).data(ChatModel::MetaRole).toString(), QString("3 tokens"));
        QCOMPARE(model.index(a).data(ChatModel::RoleRole).toString(), QString("assistant"));
        // A first answer is announced by its insertion alone (the two signals above were the text);
        // a second version relabels the first one, and only that one.
        QCOMPARE(model.index(a).data(ChatModel::HeaderRole).toString(), QString("Answer"));
        changed.clear();
        const int v2 = model.insert(model.end_of_turn(q), {0, "assistant", "Flint", {}, false, false});
        QCOMPARE(v2, 2);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.at(0).at(0).value<QModelIndex>().row(), a);
        QCOMPARE(changed.at(0).at(1).value<QModelIndex>().row(), a);
        QCOMPARE(model.index(a).data(ChatModel::HeaderRole).toString(), QString("Answer · version 1 of 2"));
        QCOMPARE(model.index(v2).data(ChatModel::HeaderRole).toString(), QString("Answer · version 2 of 2"));
        QCOMPARE(model.latest_answer_row(q), v2);
        model.remove_row(v2);
        QCOMPARE(model.index(a).data(ChatModel::HeaderRole).toString(), QString("Answer"));
        model.append_text(7, "ignored");  // out of range: no change, no crash
        model.remove_from(1);
        QCOMPARE(model.rowCount(), 1);
        model.set_messages({{1, "user", "a", {}}, {2, "assistant", "b", {}}});
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(1).data(ChatModel::IdRole).toLongLong(), 2LL);
        QVERIFY(model.roleNames().contains(ChatModel::StreamingRole));
        model.set_messages({});
        QCOMPARE(model.rowCount(), 0);
    }

    void library_model() {
        LibraryModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        DocumentRecord a;
        a.id = 5;
        a.title = "A";
        a.path = "/a.pdf";
        a.format = "pdf";
        a.byte_size = 2048;
        a.token_count = 12345;
        a.page_offsets = {0, 100, 200};
        DocumentRecord b;
        b.id = 9;
        b.title = "B";
        b.format = "txt";
        model.set_documents({a, b});
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.row_of(9), 1);
        QCOMPARE(model.row_of(1), -1);
        const QString display = model.index(0).data().toString();
        QVERIFY2(display.startsWith("A\n"), qPrintable(display));
        QVERIFY2(display.contains("12,345 tokens"), qPrintable(display));
        QVERIFY2(display.contains("3 pages"), qPrintable(display));
        QCOMPARE(model.index(0).data(LibraryModel::PathRole).toString(), QString("/a.pdf"));
        QVERIFY(!model.index(1).data(LibraryModel::TokensRole).isValid());
        model.set_documents({b});
        QCOMPARE(model.rowCount(), 1);
    }

    void conversation_model() {
        ConversationModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.set_conversations(
            {{3, 1, "First question", "m", 1700000000, 4}, {2, 1, "Older", "m", 1600000000, 2}});
        QCOMPARE(model.rowCount(), 2);
        QVERIFY(model.index(0).data().toString().contains("4 messages"));
        QCOMPARE(model.index(1).data(ConversationModel::IdRole).toLongLong(), 2LL);
        QCOMPARE(model.row_of(2), 1);
        model.set_conversations({});
        QCOMPARE(model.rowCount(), 0);
    }
};

QTEST_GUILESS_MAIN(TestItemModels)
#include "test_item_models.moc"
