# Adapts today's tests/ui, copied into a worktree at 3cbcbe8 (the commit issue 23 was filed
# against), so that the issue-23 tests compile against the code before the fixes. Only test
# functions and lines that use an API the fixes added are removed (unit tests of new helpers, and
# checks of new accessors that follow the user-visible assertion); the assertions about what a user
# sees stay, so each test shows whether it fails on the old code. Used by run.sh; the results are
# in docs/ui-issue23-tests.md.
import re, sys, os
root = sys.argv[1]
def edit(name, fn):
    p = os.path.join(root, name)
    s = open(p).read()
    t = fn(s)
    assert t != s, name
    open(p, 'w').write(t)
def drop_func(s, name):
    # removes "    void name() {" ... matching "    }" (4-space indented slot), with its leading comment block
    i = s.index('    void %s() {' % name)
    j = s.index('\n    }\n', i) + len('\n    }\n')
    # leading comments
    k = s.rfind('\n\n', 0, i) + 1
    if k > 0 and all(l.strip().startswith('//') or not l.strip() for l in s[k:i].splitlines()):
        i = k
    return s[:i] + s[j:]
def drop_lines(s, *needles):
    return '\n'.join(l for l in s.split('\n') if not any(n in l for n in needles))

edit('test_round3_minor.cpp', lambda s: drop_func(drop_lines(s, '#include "ui/inspector/head_roles.h"'),
                                                  'the_inspector_names_the_heads_the_model_names'))
edit('test_active_conversation.cpp', lambda s: drop_func(drop_lines(s, '#include "ui/worker/held_reselect.h"'),
                                                         'held_reselect_matches_the_engine'))
edit('test_html_boilerplate.cpp', lambda s: drop_func(drop_lines(s, '#include "app/services/html_boilerplate.h"'),
                                                      'unclosed_and_plain_pages_pass_through'))
edit('test_third_party_messages.cpp', lambda s: drop_func(drop_lines(s, '#include "app/services/third_party_messages.h"'),
                                                          'qt_font_noise_goes_to_debug_with_one_summary'))
def axes(s):
    s = drop_func(s, 'tick_labels_are_whole_and_the_head_detail_has_an_x_axis')
    i = s.index('// Every label lies inside'); j = s.index('\n}\n', i) + 3
    s = s[:i] + s[j:]
    s = s.replace('''            int head_labels = 0;
            for (const AxisLabel& l : grid->strip_labels()) head_labels += l.text.startsWith("h") ? 1 : 0;
            if (strip >= 14) QVERIFY2(head_labels == c.layers * (c.heads - 1), qPrintable(what));
''', '')
    return drop_lines(s, '#include "ui/inspector/head_detail_view.h"')
edit('test_inspector_axes.cpp', axes)
def layout(s):
    s = drop_func(drop_func(s, 'which_layout'), 'markdown_soft_breaks')
    s = drop_lines(s, '#include "ui/document/document_layout.h"', '#include "ui/document/markdown_styler.h"',
                   'view->layout()', 'MarkdownStyler::', 'markdown_view_text(')
    # the block-text comparison that followed markdown_view_text
    s = s.replace('''        QCOMPARE(view->document()->findBlock(text.indexOf("Some")).text(),
                 QString("Some **bold claim** and an *aside* with `code_span` and a [link "
                         "text](https://example.org/x)."));
''', '')
    return s
edit('test_document_layout.cpp', layout)
edit('test_document_page_indicator.cpp', lambda s: s.replace('panel->show_document("report.pdf", text, pages, "pdf");',
                                                             'panel->show_document("report.pdf", text, pages);'))
