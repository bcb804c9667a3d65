// The baseline for `npm run bench`: the per-row loop of common tutorials. One fetch and four single-cell writes
// per row, no cache, no de-duplication. Runs in the same emulator, against the same sandbox, as the add-on.
function naiveEnrich(maxMillis) {
  var started = Date.now();
  var range = SpreadsheetApp.getActiveRange();
  var sheet = range.getSheet();
  var column = range.getColumn();
  var key = PropertiesService.getUserProperties().getProperty('PEF_API_KEY');
  var base = PropertiesService.getScriptProperties().getProperty('API_BASE_URL');
  var rows = 0;
  for (var row = range.getRow(); row <= range.getLastRow(); row++) {
    if (Date.now() - started > maxMillis) break;
    var url = sheet.getRange(row, column).getValue();
    if (!url) continue;
    var response = UrlFetchApp.fetch(`${base}network_finder`, {
      method: 'post',
      contentType: 'application/json',
      headers: { 'X-KEY': key },
      payload: JSON.stringify({ network_url: url }),
      muteHttpExceptions: true,
    });
    var data = JSON.parse(response.getContentText());
    sheet.getRange(row, column + 1).setValue(data.email_address || '');
    sheet.getRange(row, column + 2).setValue(data.email_status || '');
    sheet.getRange(row, column + 3).setValue(data.is_catch_all === true);
    sheet.getRange(row, column + 4).setValue(data.message || data.error || '');
    rows++;
  }
  return rows;
}

/**
 * The per-cell custom function of common tutorials: one fetch per call, no cache.
 *
 * @param {string} url A profile URL.
 * @return The e-mail address, or the service's message.
 * @customfunction
 */
function NAIVE(url) {
  if (!url) return '';
  var key = PropertiesService.getUserProperties().getProperty('PEF_API_KEY');
  var base = PropertiesService.getScriptProperties().getProperty('API_BASE_URL');
  var response = UrlFetchApp.fetch(`${base}network_finder`, {
    method: 'post',
    contentType: 'application/json',
    headers: { 'X-KEY': key },
    payload: JSON.stringify({ network_url: url }),
    muteHttpExceptions: true,
  });
  var data = JSON.parse(response.getContentText());
  return data.email_address || data.message || data.error || '';
}
