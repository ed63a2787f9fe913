/** The read-your-writes token on every successful ingestion answer (CONTRACT "Read-your-writes"). */
export const SEQ_HEADER = 'Spanlog-Seq';
