-- Run by tests/nvim/run.sh: `nvim --headless --clean -l test.lua`, with ABIDOC_BIN (the abidoc
-- binary) and ABIDOC_WORK (a directory holding seed000.log and train.ipynb).

local bin = assert(os.getenv('ABIDOC_BIN'), 'ABIDOC_BIN')
local work = assert(os.getenv('ABIDOC_WORK'), 'ABIDOC_WORK')
local MANGLED = '_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib'

local passed, failed = 0, 0
local function check(name, ok, detail)
  if ok then
    passed = passed + 1
    print('ok   ' .. name)
  else
    failed = failed + 1
    print('FAIL ' .. name .. (detail and (': ' .. vim.inspect(detail)) or ''))
  end
end

local function finish()
  for _, client in ipairs(vim.lsp.get_clients({ name = 'abidoc' })) do
    client:stop()
  end
  vim.wait(2000, function()
    return #vim.lsp.get_clients({ name = 'abidoc' }) == 0
  end, 50)
  print(('%d passed, %d failed'):format(passed, failed))
  os.exit(failed == 0 and 0 or 1)
end

local function open(path, filetype)
  vim.cmd.edit(vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].filetype = filetype
  return buf
end

local function wait_diagnostics(buf)
  vim.wait(20000, function()
    return #vim.diagnostic.get(buf) > 0
  end, 50)
  return vim.diagnostic.get(buf)
end

local function find(buf, needle)
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local col = line:find(needle, 1, true)
    if col then
      return i - 1, col - 1
    end
  end
end

local function by_code(diags, code)
  for _, d in ipairs(diags) do
    if d.code == code then
      return d
    end
  end
end

-- 1. A log: diagnostics, a hover on the mangled symbol, the code actions.
local log = open(work .. '/seed000.log', 'log')
-- As README-lsp.md's snippet: this client runs `abidoc.runInTerminal` itself and lists it; it
-- has no notebook UI, so `abidoc.insertCell` is not listed.
local client_id = vim.lsp.start({
  name = 'abidoc',
  cmd = { bin, 'lsp' },
  root_dir = work,
  init_options = { useEnvironment = false },
  capabilities = vim.tbl_deep_extend('force', vim.lsp.protocol.make_client_capabilities(), {
    experimental = { commands = { commands = { 'abidoc.runInTerminal' } } },
  }),
}, { bufnr = log })
check('server started', client_id ~= nil)
if not client_id then
  finish()
end

local diags = wait_diagnostics(log)
local abi = by_code(diags, 'abi-mismatch')
check('log: abi-mismatch diagnostic', abi ~= nil, diags)
if abi then
  local line = vim.api.nvim_buf_get_lines(log, abi.lnum, abi.lnum + 1, false)[1] or ''
  check('log: diagnostic on the undefined-symbol line', line:find('undefined symbol', 1, true) ~= nil, line)
  check('log: error severity, source abidoc', abi.severity == vim.diagnostic.severity.ERROR and abi.source == 'abidoc', abi)
end

local hl, hc = find(log, MANGLED)
local hover = vim.lsp.buf_request_sync(log, 'textDocument/hover', {
  textDocument = { uri = vim.uri_from_bufnr(log) },
  position = { line = hl, character = hc + 5 },
}, 10000)
local hover_text = hover and hover[client_id] and hover[client_id].result and hover[client_id].result.contents.value or ''
check('log: hover demangles the symbol', hover_text:find('c10::cuda::c10_cuda_check_implementation', 1, true) ~= nil, hover)

if abi then
  local lsp_diag = abi.user_data and abi.user_data.lsp
  local actions = vim.lsp.buf_request_sync(log, 'textDocument/codeAction', {
    textDocument = { uri = vim.uri_from_bufnr(log) },
    range = lsp_diag and lsp_diag.range or { start = { line = abi.lnum, character = 0 }, ['end'] = { line = abi.lnum, character = 0 } },
    context = { diagnostics = { lsp_diag } },
  }, 10000)
  local list = actions and actions[client_id] and actions[client_id].result or {}
  local preferred
  for _, a in ipairs(list) do
    if a.isPreferred then
      preferred = a
    end
  end
  check('log: a preferred quickfix', preferred ~= nil and preferred.kind == 'quickfix', list)
  if preferred then
    local argv = preferred.command and preferred.command.arguments and preferred.command.arguments[1].commands[1] or {}
    local joined = table.concat(argv, ' ')
    check('log: preferred fix runs pip uninstall mamba-ssm in a terminal',
      preferred.command.command == 'abidoc.runInTerminal' and joined:find('uninstall', 1, true) ~= nil and joined:find('mamba-ssm', 1, true) ~= nil,
      preferred)
  end
end

-- 2. A notebook opened as text: diagnostics on the traceback's JSON line; without
-- `abidoc.insertCell` listed, the preferred fix runs in a terminal.
local nb = open(work .. '/train.ipynb', 'json')
vim.lsp.buf_attach_client(nb, client_id)
local nb_diags = wait_diagnostics(nb)
local nb_abi = by_code(nb_diags, 'abi-mismatch')
check('ipynb: abi-mismatch diagnostic', nb_abi ~= nil, nb_diags)
if nb_abi then
  local line = vim.api.nvim_buf_get_lines(nb, nb_abi.lnum, nb_abi.lnum + 1, false)[1] or ''
  check('ipynb: diagnostic on a JSON line of the traceback', line:find('undefined symbol', 1, true) ~= nil, line)
  local actions = vim.lsp.buf_request_sync(nb, 'textDocument/codeAction', {
    textDocument = { uri = vim.uri_from_bufnr(nb) },
    range = nb_abi.user_data.lsp.range,
    context = { diagnostics = { nb_abi.user_data.lsp } },
  }, 10000)
  local list = actions and actions[client_id] and actions[client_id].result or {}
  local preferred, unlisted
  for _, a in ipairs(list) do
    if a.isPreferred then
      preferred = a
    end
    if a.command and a.command.command ~= 'abidoc.runInTerminal' then
      unlisted = a
    end
  end
  check('ipynb: only the listed client command is offered', unlisted == nil, list)
  local argv = preferred and preferred.command and preferred.command.arguments[1].commands[1] or {}
  check('ipynb: the preferred fix runs pip in a terminal',
    preferred ~= nil and preferred.command.command == 'abidoc.runInTerminal' and table.concat(argv, ' '):find('pip', 1, true) ~= nil, list)
end

-- 3. Edits are followed: typing a new error into the log re-diagnoses it.
vim.api.nvim_set_current_buf(log)
vim.api.nvim_buf_set_lines(log, 0, -1, false, { 'OSError: libcudart.so.12: cannot open shared object file: No such file or directory' })
local ok = vim.wait(20000, function()
  return by_code(vim.diagnostic.get(log), 'missing-shared-library') ~= nil
end, 50)
check('log: edit re-diagnosed (missing-shared-library)', ok, vim.diagnostic.get(log))

finish()
