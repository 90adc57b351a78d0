"""A realistic editing session with `entlc lsp`, driven by pytest-lsp (an independent client).

The rule set lives in a temporary directory; the editor opens one file, types an error, sees the
diagnostic, fixes it, hovers, jumps to a definition, completes, renames, formats, applies a
code action and shuts the server down. Positions are zero-based, columns in UTF-16 units.
"""

import os
import pathlib
import subprocess

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

ENTLC = os.environ.get("ENTLC", str(pathlib.Path(__file__).resolve().parents[2] / ".build/debug/entlc"))

# The rule file both end-to-end suites edit (neovim.sh opens it with a typo).
RULES = (pathlib.Path(__file__).parent / "photos.entl").read_text()

OTHER = "entitlement export_all = pro { grants export }\n"


@pytest.fixture
def workspace(tmp_path):
    (tmp_path / "photos.entl").write_text(RULES)
    (tmp_path / "more.entl").write_text(OTHER)
    return tmp_path


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[ENTLC, "lsp"]))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=client_capabilities("visual-studio-code"))
    )
    yield
    await lsp_client.shutdown_session()


def r(l1, c1, l2, c2):
    return types.Range(start=types.Position(line=l1, character=c1), end=types.Position(line=l2, character=c2))


def doc(uri):
    return types.TextDocumentIdentifier(uri=uri)


async def diagnostics_after(client, action, uri):
    """Runs `action` and returns the next diagnostics published for `uri`."""
    while True:
        waiting = client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        action()
        await waiting
        if uri in client.diagnostics:
            return client.diagnostics.pop(uri)
        action = lambda: None


async def test_an_editing_session(client: LanguageClient, workspace):
    path = workspace / "photos.entl"
    uri = path.as_uri()
    more = (workspace / "more.entl").as_uri()

    # Open the file with a typo in the constraint: the error comes as we type.
    broken = RULES.replace("or pro_annual", "or pro_anual")
    found = await diagnostics_after(client, lambda: client.text_document_did_open(
        types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
            uri=uri, language_id="entl", version=1, text=broken))), uri)
    assert [(d.code, d.message, d.range, d.severity) for d in found] == [
        ("E201", "unknown product `pro_anual`", r(10, 33, 10, 42), types.DiagnosticSeverity.Error)]
    assert found[0].related_information[0].message == "help: did you mean `pro_annual`?"

    # The quick fix replaces the word; applied as an incremental change, the error goes away.
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=doc(uri), range=r(10, 35, 10, 35), context=types.CodeActionContext(diagnostics=found)))
    assert [a.title for a in actions] == ["Replace `pro_anual` with `pro_annual`"]
    edit = actions[0].edit.changes[uri][0]
    assert (edit.range, edit.new_text) == (r(10, 33, 10, 42), "pro_annual")
    fixed = await diagnostics_after(client, lambda: client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangePartial(range=edit.range, text=edit.new_text)])), uri)
    assert list(fixed) == []

    # Hover: the declaration, its doc comment and its grants.
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=doc(uri), position=types.Position(line=10, character=13)))
    assert hover.contents.value == (
        "```entl\nentitlement pro = pro_monthly or pro_annual\n```\n\n(entitlement)\n\n"
        "Everything in Pro.\n\n- grants `export`\n- grants `api_calls 100 per month`\n"
        "- required by: entitlement `export_all`")

    # Go to definition from a use in the other file of the rule set (read from disk).
    definition = await client.text_document_definition_async(types.DefinitionParams(
        text_document=doc(more), position=types.Position(line=0, character=26)))
    assert [(d.uri, d.range) for d in definition] == [(uri, r(10, 12, 10, 15))]

    # Completion after `grants`: the grantable names with their kind and docs.
    completion = await client.text_document_completion_async(types.CompletionParams(
        text_document=doc(uri), position=types.Position(line=11, character=9)))
    assert [(i.label, i.kind, i.detail) for i in completion.items] == [
        ("export", types.CompletionItemKind.Property, "boolean feature"),
        ("api_calls", types.CompletionItemKind.Property, "metered feature")]

    # Rename across both files of the rule set.
    rename = await client.text_document_rename_async(types.RenameParams(
        text_document=doc(uri), position=types.Position(line=16, character=9), new_name="export_photos"))
    assert sorted((u, [(e.range, e.new_text) for e in edits]) for u, edits in rename.changes.items()) == sorted([
        (more, [(r(0, 38, 0, 44), "export_photos")]),
        (uri, [(r(11, 9, 11, 15), "export_photos"), (r(16, 8, 16, 14), "export_photos")])])

    # Formatting gives exactly what `entlc fmt` writes.
    edits = await client.text_document_formatting_async(types.DocumentFormattingParams(
        text_document=doc(uri), options=types.FormattingOptions(tab_size=4, insert_spaces=True)))
    expected = subprocess.run([ENTLC, "fmt", "--stdout", "-"], input=RULES, capture_output=True, text=True,
                              check=True).stdout
    assert [(e.range, e.new_text) for e in edits] == [(r(0, 0, 21, 0), expected)]

    # A warning gets an `entl-allow` action.
    await diagnostics_after(client, lambda: client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=3),
        content_changes=[types.TextDocumentContentChangePartial(range=r(6, 5, 6, 14), text="appstore")])), uri)
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=doc(uri), range=r(6, 6, 6, 6), context=types.CodeActionContext(diagnostics=[])))
    assert [a.title for a in actions] == [
        "Replace `appstore` with `app_store`", "Allow W314 in `pro_annual` (// entl-allow)"]
    allow = actions[1].edit.changes[uri][0]
    assert (allow.range, allow.new_text) == (r(4, 0, 4, 0), "// entl-allow W314\n")


async def test_bad_requests_get_errors_and_the_server_keeps_serving(client: LanguageClient, workspace):
    uri = (workspace / "photos.entl").as_uri()
    with pytest.raises(Exception, match="unknown document"):
        await client.text_document_hover_async(types.HoverParams(
            text_document=doc((workspace / "nowhere" / "x.entl").as_uri()), position=types.Position(line=0, character=0)))
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="entl", version=1, text="product }\n")))
    with pytest.raises(Exception, match="cannot format photos.entl: it has syntax errors"):
        await client.text_document_formatting_async(types.DocumentFormattingParams(
            text_document=doc(uri), options=types.FormattingOptions(tab_size=2, insert_spaces=True)))
    with pytest.raises(Exception, match="reserved word"):
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=RULES)]))
        await client.text_document_rename_async(types.RenameParams(
            text_document=doc(uri), position=types.Position(line=16, character=9), new_name="not"))
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc(uri)))
    assert [s.name for s in symbols] == [
        'app "com.example.photos"', "pro_monthly", "pro_annual", "pro", "export", "api_calls"]


async def test_garbage_between_messages_is_skipped_and_logged(client: LanguageClient, workspace):
    """Bytes that are not a message, written to the server's input between the client's own
    (which carry a `Content-Type` header too): each is logged and the next request answered."""
    uri = (workspace / "photos.entl").as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="entl", version=1, text=RULES)))
    garbage = [b"\n", b"\r\n\r\n", b"garbage \xff\x00", b"Content-Len", b"Content-Length: 99\r\n\r\n{}",
               b"content-type: text/plain\r\n\r\n{\"id\": 1}"]
    for piece in garbage:
        client.protocol.writer.write(piece)
        symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc(uri)))
        assert [s.name for s in symbols] == [
            'app "com.example.photos"', "pro_monthly", "pro_annual", "pro", "export", "api_calls"], piece
    logs = [m.message for m in client.log_messages if m.message.startswith("entlc lsp: skipped")]
    assert logs == [
        "entlc lsp: skipped 1 byte that is not an LSP message (not a `Name: value` header line): `\\n`",
        "entlc lsp: skipped 4 bytes that are not an LSP message (a blank line): `\\r\\n\\r\\n`",
        "entlc lsp: skipped 10 bytes that are not an LSP message (not a `Name: value` header line): "
        "`garbage \\xFF\\x00`",
        "entlc lsp: skipped 11 bytes that are not an LSP message (a header without `Content-Length`): `Content-Len`",
        "entlc lsp: skipped 2 bytes that are not an LSP message (a message shorter than its `Content-Length`): `{}`",
        "entlc lsp: skipped 37 bytes that are not an LSP message (a header without `Content-Length`): "
        "`content-type: text/plain\\r\\n\\r\\n{\"id…`",
    ]
