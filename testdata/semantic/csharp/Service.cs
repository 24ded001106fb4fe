using System;

namespace Demo
{
    /// <summary>Finds users.</summary>
    [Serializable]
    public class UserService
    {
        public int Count { get; set; }

        [Obsolete]
        public User FindById(string id)
        {
            return null;
        }

        public User FindById(int id)
        {
            return null;
        }

        public void Helper() { }
    }
}
